package io.varpulis.autoconfigure;

import io.varpulis.messaging.ListenerSettings;
import io.varpulis.messaging.NatsListener;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;
import io.varpulis.support.PropertyChecks;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code varpulis.nats.listeners.<id>.*}: per {@link NatsListener} id, settings that
 * override the annotation's, so an operator can change a consumer's limits or subject
 * from {@code application.yml} or the environment.
 */
@ConfigurationProperties(prefix = "varpulis.nats")
public class NatsListenerProperties implements Validator {

    /** Listener settings by listener id. */
    private final Map<String, Listener> listeners = new LinkedHashMap<>();

    /**
     * How long each listener subscription may take, on shutdown, to finish the deliveries
     * it already received.
     */
    private Duration listenerDrainTimeout = Duration.ofSeconds(10);

    /**
     * After how long without a delivery a listener publishes a NatsListenerEvent.Idle
     * (and a NoLongerIdle when one comes); unset: no idle events (Spring Kafka's
     * spring.kafka.listener.idle-event-interval).
     */
    private Duration listenerIdleEventInterval;

    public Map<String, Listener> getListeners() {
        return listeners;
    }

    /**
     * @return what the listener container factory receives: each listener id's overrides
     */
    public Map<String, ListenerSettings> toSettings() {
        return listeners.entrySet()
            .stream()
            .collect(Collectors.toUnmodifiableMap(Map.Entry::getKey, entry -> entry.getValue().toSettings()));
    }

    /**
     * @param type a class being bound
     * @return whether it is this class, which validates itself while Spring Boot binds it
     */
    @Override
    public boolean supports(Class<?> type) {
        return NatsListenerProperties.class.isAssignableFrom(type);
    }

    /**
     * Checks each listener's back-off and apply timeout; Spring Boot fails startup with
     * each violation, naming the property, its value and its origin.
     * @param target the bound properties
     * @param errors where violations go
     */
    @Override
    public void validate(Object target, Errors errors) {
        ((NatsListenerProperties) target).getListeners().forEach((id, listener) -> {
            String prefix = "listeners[" + id + "].";
            BackOff backoff = listener.getBackoff();
            BackOffProperties.check(prefix + "backoff.", errors, backoff.getDelay(), backoff.getMultiplier(),
                    backoff.getMaxDelay(), backoff.getJitter());
            PropertyChecks.atLeast(errors, prefix + "applyTimeout", listener.getApplyTimeout(), Duration.ofMillis(1));
        });
    }

    public Duration getListenerIdleEventInterval() {
        return listenerIdleEventInterval;
    }

    public void setListenerIdleEventInterval(Duration listenerIdleEventInterval) {
        this.listenerIdleEventInterval = listenerIdleEventInterval;
    }

    public Duration getListenerDrainTimeout() {
        return listenerDrainTimeout;
    }

    public void setListenerDrainTimeout(Duration listenerDrainTimeout) {
        this.listenerDrainTimeout = listenerDrainTimeout;
    }

    /** One listener's overrides; an unset value keeps the annotation's. */
    public static class Listener {

        /** Filter subject of the durable consumer, wildcards allowed. */
        private String subject;

        /**
         * Stream the consumer reads (default: the one whose subjects capture the filter
         * subject).
         */
        private String stream;

        /**
         * Deliveries handled at once (pull subscriptions of the one durable consumer).
         */
        private Integer concurrency;

        /**
         * The consumer's max_deliver: the delivery on which a failing event is parked.
         */
        private Integer maxDeliver;

        /**
         * The consumer's max_ack_pending: deliveries handed out and not yet acked, at
         * most.
         */
        private Integer maxAckPending;

        /**
         * Subject a return value (other than an OutboundEvent) is published to when the
         * message is not a request naming its own reply subject.
         */
        private String sendTo;

        /**
         * The longest the method (and the PubAck of what it returns) may take before its
         * delivery is reported and released for redelivery.
         */
        private Duration applyTimeout;

        /**
         * Whether the listener starts with the context; false: started later through the
         * NatsListenerEndpointRegistry or the natslisteners endpoint.
         */
        private Boolean autoStartup;

        /** After how long without a delivery it publishes a NatsListenerEvent.Idle. */
        private Duration idleEventInterval;

        /**
         * A batch listener's most deliveries per call (default: the consumer's
         * batch-size).
         */
        private Integer batchSize;

        public Integer getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(Integer batchSize) {
            this.batchSize = batchSize;
        }

        public Boolean getAutoStartup() {
            return autoStartup;
        }

        public void setAutoStartup(Boolean autoStartup) {
            this.autoStartup = autoStartup;
        }

        public Duration getIdleEventInterval() {
            return idleEventInterval;
        }

        public void setIdleEventInterval(Duration idleEventInterval) {
            this.idleEventInterval = idleEventInterval;
        }

        /**
         * The listener's nak back-off; each value unset keeps the annotation's, else
         * varpulis.nats.jetstream.consumer.backoff.*.
         */
        @NestedConfigurationProperty
        private final BackOff backoff = new BackOff();

        public Duration getApplyTimeout() {
            return applyTimeout;
        }

        public void setApplyTimeout(Duration applyTimeout) {
            this.applyTimeout = applyTimeout;
        }

        public BackOff getBackoff() {
            return backoff;
        }

        ListenerSettings toSettings() {
            return new ListenerSettings(subject, stream, concurrency, maxDeliver, maxAckPending, sendTo,
                    new ListenerSettings.BackOff(backoff.getDelay(), backoff.getMultiplier(), backoff.getMaxDelay(),
                            backoff.getJitter()),
                    applyTimeout, autoStartup, idleEventInterval, batchSize);
        }

        public String getSubject() {
            return subject;
        }

        public void setSubject(String subject) {
            this.subject = subject;
        }

        public String getStream() {
            return stream;
        }

        public void setStream(String stream) {
            this.stream = stream;
        }

        public Integer getConcurrency() {
            return concurrency;
        }

        public void setConcurrency(Integer concurrency) {
            this.concurrency = concurrency;
        }

        public Integer getMaxDeliver() {
            return maxDeliver;
        }

        public void setMaxDeliver(Integer maxDeliver) {
            this.maxDeliver = maxDeliver;
        }

        public Integer getMaxAckPending() {
            return maxAckPending;
        }

        public void setMaxAckPending(Integer maxAckPending) {
            this.maxAckPending = maxAckPending;
        }

        public String getSendTo() {
            return sendTo;
        }

        public void setSendTo(String sendTo) {
            this.sendTo = sendTo;
        }

    }

    /**
     * A listener's nak back-off; each value unset keeps the annotation's, else the
     * consumers'.
     */
    public static class BackOff {

        /** The first nak's delay. */
        private Duration delay;

        /** How much longer each next nak's delay is; 1 for a fixed delay. */
        private Double multiplier;

        /** The longest nak delay. */
        private Duration maxDelay;

        /**
         * How far each delay is moved either way, at random (at most the first delay).
         */
        private Duration jitter;

        public Duration getDelay() {
            return delay;
        }

        public void setDelay(Duration delay) {
            this.delay = delay;
        }

        public Double getMultiplier() {
            return multiplier;
        }

        public void setMultiplier(Double multiplier) {
            this.multiplier = multiplier;
        }

        public Duration getMaxDelay() {
            return maxDelay;
        }

        public void setMaxDelay(Duration maxDelay) {
            this.maxDelay = maxDelay;
        }

        public Duration getJitter() {
            return jitter;
        }

        public void setJitter(Duration jitter) {
            this.jitter = jitter;
        }

    }

}
