package io.varpulis.autoconfigure;

import io.varpulis.messaging.ListenerSettings;
import io.varpulis.messaging.NatsListener;
import org.springframework.boot.context.properties.ConfigurationProperties;

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
public class NatsListenerProperties {

    /** Listener settings by listener id. */
    private final Map<String, Listener> listeners = new LinkedHashMap<>();

    /**
     * How long each listener subscription may take, on shutdown, to finish the deliveries
     * it already received.
     */
    private Duration listenerDrainTimeout = Duration.ofSeconds(10);

    public Map<String, Listener> getListeners() {
        return listeners;
    }

    /**
     * @return what the listener container factory receives: each listener id's overrides
     */
    public Map<String, ListenerSettings> toSettings() {
        return listeners.entrySet()
            .stream()
            .collect(Collectors.toUnmodifiableMap(Map.Entry::getKey,
                    entry -> new ListenerSettings(entry.getValue().getSubject(), entry.getValue().getStream(),
                            entry.getValue().getConcurrency(), entry.getValue().getMaxDeliver(),
                            entry.getValue().getMaxAckPending(), entry.getValue().getSendTo())));
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

        /** Subject a return value (other than an OutboundEvent) is published to. */
        private String sendTo;

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

}
