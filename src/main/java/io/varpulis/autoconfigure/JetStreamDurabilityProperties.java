package io.varpulis.autoconfigure;

import io.varpulis.support.PropertyChecks;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What a node watches beyond its own deliveries (issue 43, SPEC section 21):
 * {@code varpulis.nats.jetstream.evictions.*}, the events its streams drop unconsumed,
 * and {@code varpulis.nats.jetstream.sync-check.*}, whether the nats-servers sync every
 * write.
 */
@ConfigurationProperties("varpulis.nats.jetstream")
public class JetStreamDurabilityProperties implements Validator {

    /** Evictions of unconsumed events. */
    private final Evictions evictions = new Evictions();

    /** Whether the servers sync every write. */
    private final SyncCheck syncCheck = new SyncCheck();

    public Evictions getEvictions() {
        return evictions;
    }

    public SyncCheck getSyncCheck() {
        return syncCheck;
    }

    /** {@code varpulis.nats.jetstream.evictions.*}. */
    public static class Evictions {

        /**
         * Whether events the streams drop unconsumed (max_age, max_bytes; parked events
         * at the DLQ's max_msgs) are counted (varpulis.events.evicted) and logged at
         * ERROR.
         */
        private boolean enabled = true;

        /**
         * How often the streams and consumers watched are asked: a few small requests per
         * stream and consumer each time, more for a consumer the stream's first sequence
         * has passed. Shorter than the streams' max_age, so that a count stays exact.
         */
        private Duration interval = Duration.ofSeconds(10);

        /**
         * Whether the instances of this service share their last look at each stream in
         * the key-value bucket varpulis_evictions, so that one of them counts each
         * eviction; by default each keeps its own (a service creates nothing on the
         * server it did not declare) and each counts what it sees: aggregate
         * varpulis.events.evicted with max, not sum. A cluster node always shares it.
         */
        private boolean sharedLedger = false;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        public boolean isSharedLedger() {
            return sharedLedger;
        }

        public void setSharedLedger(boolean sharedLedger) {
            this.sharedLedger = sharedLedger;
        }

    }

    /** {@code varpulis.nats.jetstream.sync-check.*}. */
    public static class SyncCheck {

        /**
         * The nats-servers' monitoring endpoints (http://host:8222, one per server),
         * whose /varz tells whether each syncs every write (sync_interval: always). The
         * NATS protocol does not tell clients; without them the setting is unknown,
         * except on a server older than 2.10, which cannot sync every write.
         */
        private List<URI> monitoringUrls = new ArrayList<>();

        /** How often the servers are asked again. */
        private Duration interval = Duration.ofMinutes(5);

        public List<URI> getMonitoringUrls() {
            return monitoringUrls;
        }

        public void setMonitoringUrls(List<URI> monitoringUrls) {
            this.monitoringUrls = monitoringUrls;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

    }

    /**
     * @param type a class being bound
     * @return whether it is this class, which validates itself while Spring Boot binds it
     */
    @Override
    public boolean supports(Class<?> type) {
        return JetStreamDurabilityProperties.class.isAssignableFrom(type);
    }

    /**
     * Refuses intervals under 100 ms and monitoring URLs that are not http(s), naming the
     * property.
     * @param target the bound properties
     * @param errors where violations go
     */
    @Override
    public void validate(Object target, Errors errors) {
        JetStreamDurabilityProperties properties = (JetStreamDurabilityProperties) target;
        PropertyChecks.atLeast(errors, "evictions.interval", properties.getEvictions().getInterval(),
                Duration.ofMillis(100));
        PropertyChecks.atLeast(errors, "syncCheck.interval", properties.getSyncCheck().getInterval(),
                Duration.ofMillis(100));
        for (URI url : properties.getSyncCheck().getMonitoringUrls()) {
            if (url.getScheme() == null || !url.getScheme().matches("https?") || url.getHost() == null) {
                errors.rejectValue("syncCheck.monitoringUrls", "url",
                        "varpulis.nats.jetstream.sync-check.monitoring-urls has '" + url
                                + "': give the servers' monitoring endpoints as http://host:8222");
            }
        }
    }

}
