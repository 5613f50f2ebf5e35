package io.varpulis.messaging;

/**
 * The names of the headers a {@link NatsListener}'s {@code Message<T>} carries besides
 * the NATS headers of the message (each by its name, its last value), for
 * {@code @Header(NatsHeaders.ATTEMPT) long attempt}, in the manner of Spring Kafka's
 * {@code KafkaHeaders}.
 */
public final class NatsHeaders {

    /** The subject the message was published on ({@code String}). */
    public static final String SUBJECT = "nats_subject";

    /** The stream that stored it ({@code String}; absent on core). */
    public static final String STREAM = "nats_stream";

    /** Its stream sequence ({@code Long}; absent on core). */
    public static final String STREAM_SEQUENCE = "nats_streamSequence";

    /** This delivery's attempt, from 1 ({@code Long}). */
    public static final String ATTEMPT = "nats_attempt";

    /** The consumer's max_deliver ({@code Long}). */
    public static final String MAX_DELIVER = "nats_maxDeliver";

    /** The publisher's {@code Nats-Msg-Id} ({@code String}; absent when it set none). */
    public static final String MESSAGE_ID = "nats_messageId";

    private NatsHeaders() {
    }

}
