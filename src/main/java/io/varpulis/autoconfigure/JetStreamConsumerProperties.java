package io.varpulis.autoconfigure;

import io.varpulis.jetstream.ConsumerSettings;
import io.varpulis.jetstream.NakBackOff;
import io.varpulis.support.PropertyChecks;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

import java.time.Duration;

/**
 * What every durable pull consumer runs with, {@code varpulis.nats.jetstream.consumer.*}
 * (ADR-007 defaults): one consumer per route edge, the coordinator's heartbeat consumer
 * and a service's listeners. Domain code receives them as {@link ConsumerSettings}.
 */
@ConfigurationProperties("varpulis.nats.jetstream.consumer")
public class JetStreamConsumerProperties implements Validator {

    /** How long the server waits for an ack before it redelivers. */
    private Duration ackWait = Duration.ofSeconds(30);

    /**
     * Deliveries before an event is poison: enough for a transient failure, few enough
     * not to loop forever.
     */
    private int maxDeliver = 5;

    /** Unacked messages one consumer may hold at once. */
    private int maxAckPending = 1024;

    /**
     * How long a durable survives with nobody pulling: a deleted route edge does not hold
     * messages forever, and seven days is far longer than the routing max_age, so live
     * work is never reaped.
     */
    private Duration inactiveThreshold = Duration.ofDays(7);

    /**
     * The delays of a failed apply's naks, one step per attempt (a consumer's server-side
     * backoff does not apply to a nak, so the schedule is the client's): fixed 2 s by
     * default.
     */
    @NestedConfigurationProperty
    private final BackOffProperties backoff = new BackOffProperties();

    /**
     * The longest a delivery is kept in progress while it is applied (its processor or
     * listener method, and the effects it waits for; waits for an absent broker do not
     * count); then it is reported at ERROR, shown in the health and released for
     * redelivery. 5 minutes: Kafka's max.poll.interval.ms, the bound a Spring Kafka
     * service is already designed for, and far above a slow disk's seconds.
     */
    private Duration applyTimeout = Duration.ofMinutes(5);

    /**
     * Messages requested per pull; capped by {@code max-ack-pending}. 500 is jnats'
     * default. A pulled message's ack_wait runs while it waits in the client for the ones
     * before it, so a batch must be applied within ack_wait: 500 leaves a pipeline 60 ms
     * per message at the default 30 s (256, the default before issue 14: 117 ms, and
     * about 6 % less routed-hop throughput). A consumer whose pipeline is slower than
     * half that logs a WARN naming the batch size that fits.
     */
    private int batchSize = 500;

    public Duration getAckWait() {
        return ackWait;
    }

    public void setAckWait(Duration ackWait) {
        this.ackWait = ackWait;
    }

    public int getMaxDeliver() {
        return maxDeliver;
    }

    public void setMaxDeliver(int maxDeliver) {
        this.maxDeliver = maxDeliver;
    }

    public int getMaxAckPending() {
        return maxAckPending;
    }

    public void setMaxAckPending(int maxAckPending) {
        this.maxAckPending = maxAckPending;
    }

    public Duration getInactiveThreshold() {
        return inactiveThreshold;
    }

    public void setInactiveThreshold(Duration inactiveThreshold) {
        this.inactiveThreshold = inactiveThreshold;
    }

    /**
     * @return the first nak's delay
     * @deprecated the back-off's first delay: use
     * {@code varpulis.nats.jetstream.consumer.backoff.delay}
     */
    @Deprecated(since = "0.1.0")
    @DeprecatedConfigurationProperty(replacement = "varpulis.nats.jetstream.consumer.backoff.delay",
            reason = "the nak delay is the first step of a back-off now")
    public Duration getNakDelay() {
        return backoff.getDelay();
    }

    /**
     * @param nakDelay the first nak's delay
     * @deprecated set {@code varpulis.nats.jetstream.consumer.backoff.delay}
     */
    @Deprecated(since = "0.1.0")
    public void setNakDelay(Duration nakDelay) {
        backoff.setDelay(nakDelay);
    }

    public BackOffProperties getBackoff() {
        return backoff;
    }

    public Duration getApplyTimeout() {
        return applyTimeout;
    }

    public void setApplyTimeout(Duration applyTimeout) {
        this.applyTimeout = applyTimeout;
    }

    public int getBatchSize() {
        return batchSize;
    }

    public void setBatchSize(int batchSize) {
        this.batchSize = batchSize;
    }

    /**
     * @return the settings the consumers receive
     */
    public ConsumerSettings toSettings() {
        return new ConsumerSettings(ackWait, maxDeliver, maxAckPending, inactiveThreshold, NakBackOff.DEFAULT
            .with(backoff.getDelay(), backoff.getMultiplier(), backoff.getMaxDelay(), backoff.getJitter()),
                applyTimeout, batchSize);
    }

    /**
     * @param type a class being bound
     * @return whether it is this class, which validates itself while Spring Boot binds it
     */
    @Override
    public boolean supports(Class<?> type) {
        return JetStreamConsumerProperties.class.isAssignableFrom(type);
    }

    /**
     * Checks the ranges; Spring Boot fails startup with each violation, naming the
     * property, its value and its origin.
     * @param target the bound properties
     * @param errors where violations go
     */
    @Override
    public void validate(Object target, Errors errors) {
        JetStreamConsumerProperties consumer = (JetStreamConsumerProperties) target;
        PropertyChecks.atLeast(errors, "maxDeliver", consumer.getMaxDeliver(), 1);
        PropertyChecks.atLeast(errors, "maxAckPending", consumer.getMaxAckPending(), 1);
        consumer.getBackoff().validate("backoff.", errors);
        PropertyChecks.atLeast(errors, "applyTimeout", consumer.getApplyTimeout(), Duration.ofMillis(1));
        PropertyChecks.atLeast(errors, "batchSize", consumer.getBatchSize(), 1);
    }

}
