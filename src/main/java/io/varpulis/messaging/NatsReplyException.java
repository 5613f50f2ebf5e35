package io.varpulis.messaging;

/**
 * A request of {@link NatsTemplate#sendAndReceive} that got no usable reply (SPEC section
 * 19), in the manner of Spring Kafka's {@code KafkaReplyTimeoutException} and
 * {@code KafkaException}: no one subscribes to the subject (core), the request was not
 * stored (jetstream: its cause is the {@code PublishException}), no stream captures the
 * reply subjects, or the reply cannot be read into the type asked for. A reply that did
 * not come in time is the subclass {@link NatsReplyTimeoutException}.
 */
public class NatsReplyException extends RuntimeException {

    private final String subject;

    /**
     * @param subject the request's subject
     * @param message what went wrong, and what to do
     * @param cause the underlying failure, or {@code null}
     */
    public NatsReplyException(String subject, String message, Throwable cause) {
        super(message, cause);
        this.subject = subject;
    }

    /**
     * @return the request's subject
     */
    public String getSubject() {
        return subject;
    }

}
