package io.varpulis.messaging;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as the listener of a durable pull consumer (SPEC section 13), in
 * the manner of Spring Kafka's {@code @KafkaListener}: a container owns the consumer, its
 * threads, the ack and the errors, so the method never acks. The consumer is declared
 * from these attributes, each of which {@code varpulis.nats.listeners.<id>.*} in
 * {@code application.yml} overrides; it is created when absent and never updated (a
 * different existing consumer is used as it is, as for the cluster's own).
 * <p>
 * Parameters, resolved by Spring Messaging as Spring Kafka's are: one payload
 * ({@code @Payload}, or any parameter without another role), converted by the service's
 * {@code MessageConverter} bean, else with Jackson 2 into its type (a record, a POJO,
 * {@code JsonNode}, {@code String} as UTF-8, {@code byte[]} as is);
 * {@code @Header("name")} and {@link NatsHeader @NatsHeader("name")} (a NATS header, or
 * one of {@link NatsHeaders}); {@code @Headers Map}; {@code Message<T>}; the message's
 * {@code io.nats.client.impl.Headers}; {@link DeliveryMetadata} (subject, stream
 * sequence, attempt). With {@link #batch()}, one {@code List<T>} or
 * {@code List<Message<T>>} parameter: the deliveries of one pull, up to
 * {@link #batchSize()}.
 * <p>
 * Outcome: the delivery is acked strictly after the method returns (and after the PubAck
 * of its return value); an exception naks it after its {@link #backOff()} delay for that
 * attempt (by default a fixed 2 s, {@code varpulis.nats.jetstream.consumer.backoff.*}),
 * and on its last delivery (max_deliver) parks it with its death envelope on
 * {@code varpulis.dlq.<id>} before the ack; a payload that cannot be converted, or an
 * exception listed in {@link #notRetryable()}, is parked on its first delivery; a
 * {@link NatsListenerErrorHandler} may decide otherwise for the rest (retry, park now,
 * skip). A method that returns a {@code CompletionStage} is acked when it completes (its
 * value is the reply), settled by the rule when it fails. A method that runs past
 * {@link #applyTimeout()} is reported at ERROR and in the health, its delivery released
 * for redelivery and its thread replaced. A non-null return value is published, and its
 * PubAck received, before the ack: an {@link OutboundEvent} as it says; anything else is
 * the reply to the request the message is (SPEC section 19:
 * {@code NatsTemplate.sendAndReceive}, its {@code Varpulis-Reply-To} header on jetstream,
 * on core its reply-to when there is no {@link #sendTo()}), else goes to
 * {@link #sendTo()}; with neither, the message is parked ({@code unprocessable}). On the
 * core substrate the method runs fire-and-forget: what would have been retried or parked
 * is logged as lost.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface NatsListener {

    /**
     * @return the listener's id: its durable consumer's name, its DLQ unit
     * ({@code varpulis.dlq.<id>}), its meters' {@code pipeline} tag and its key under
     * {@code varpulis.nats.listeners}; letters, digits, {@code -} and {@code _}
     */
    String id();

    /**
     * @return the consumer's filter subject, wildcards allowed
     * ({@code stellar.tc.submit.>})
     */
    String subject() default "";

    /**
     * @return the stream the consumer reads; empty: the one stream whose subjects capture
     * {@link #subject()}
     */
    String stream() default "";

    /**
     * @return how many deliveries run at once (that many applying threads over the one
     * durable consumer's pull subscription); 0: one
     */
    int concurrency() default 0;

    /**
     * @return the consumer's max_deliver; 0:
     * {@code varpulis.nats.jetstream.consumer.max-deliver} (5)
     */
    int maxDeliver() default 0;

    /**
     * @return the consumer's max_ack_pending; 0:
     * {@code varpulis.nats.jetstream.consumer.max-ack-pending} (1024)
     */
    int maxAckPending() default 0;

    /**
     * @return the subject a return value other than an {@link OutboundEvent} is published
     * to when the message is not a request that names its own reply subject, as Spring's
     * {@code @SendTo}; empty: none (the method answers requests only)
     */
    String sendTo() default "";

    /**
     * @return exceptions (and their subclasses, anywhere in the cause chain) that no
     * retry can fix: parked on the first delivery, as Spring Kafka's not-retryable
     * classification
     */
    Class<? extends Throwable>[] notRetryable() default {};

    /**
     * @return the nak back-off; unset values keep
     * {@code varpulis.nats.jetstream.consumer.backoff.*}
     */
    NatsBackOff backOff() default @NatsBackOff;

    /**
     * @return whether the method takes the deliveries of one pull together, as one
     * {@code List<T>} or {@code List<Message<T>>} parameter (Spring Kafka's batch
     * listener); it returns nothing, and names a failed element with a
     * {@link BatchListenerFailedException}
     */
    boolean batch() default false;

    /**
     * @return the most deliveries a batch method gets in one call; 0:
     * {@code varpulis.nats.jetstream.consumer.batch-size} (500);
     * {@code varpulis.nats.listeners.<id>.batch-size} overrides it
     */
    int batchSize() default 0;

    /**
     * @return whether the listener starts with the context ({@code "true"}, the default)
     * or waits to be started through the {@link NatsListenerEndpointRegistry};
     * {@code varpulis.nats.listeners.<id>.auto-startup} overrides it
     */
    String autoStartup() default "";

    /**
     * @return with {@link #concurrency()} above 1: whether the deliveries of one subject
     * are applied one at a time, in the order they were received (each subject always on
     * the same thread); deliveries of different subjects still run at once
     */
    boolean orderedBySubject() default false;

    /**
     * @return the bean name of this listener's {@link NatsListenerErrorHandler}; empty:
     * the service's one bean of that type, if any, else the default rule
     */
    String errorHandler() default "";

    /**
     * @return the longest the method (and the PubAck of what it returns) may take before
     * its delivery is reported and released, as {@code application.yml} writes durations
     * ({@code 30s}); empty: {@code varpulis.nats.jetstream.consumer.apply-timeout} (5
     * min)
     */
    String applyTimeout() default "";

}
