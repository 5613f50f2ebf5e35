package io.varpulis.autoconfigure;

import io.varpulis.support.PropertyChecks;
import io.varpulis.transport.TransportSettings;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

import java.time.Duration;

/**
 * How a publisher waits for JetStream's PubAcks, {@code varpulis.nats.jetstream.*}: the
 * window of outstanding publishes, the publish timeout and how long a late PubAck is
 * still counted. Domain code receives them as {@link TransportSettings} (and the late
 * window as the connection's request cleanup interval).
 */
@ConfigurationProperties("varpulis.nats.jetstream")
public class JetStreamPublishProperties implements Validator {

    /**
     * Most PubAcks one publisher may wait for at once. Pipelining confirmations keeps
     * throughput near the raw client's; a full window makes the publisher wait
     * (back-pressure) instead of buffering without bound.
     */
    private int maxOutstandingPublishes = 1024;

    /** How long a publish waits for its PubAck before the caller sees it failed. */
    private Duration publishTimeout = Duration.ofSeconds(5);

    /**
     * How long a PubAck that comes after the publish timeout is still awaited (the
     * connection's request cleanup interval): a message held in the reconnect buffer or
     * published during a leader election is often stored late, and is then counted in
     * {@code varpulis.events.published}. Beyond it a late PubAck is dropped.
     */
    private Duration latePubAckWindow = Duration.ofMinutes(2);

    /**
     * Whether this node asks a stream it publishes to, whose PubAcks are at least ten
     * times slower (and 200 ms or more) than its other streams' for two 5-second checks
     * under the same leader, to step its leader down in favour of a faster server (a slow
     * disk behind one server of three; the server never moves leadership for it), and for
     * a minute after, the leader of each durable consumer it pulls from that sits on that
     * server. Off by default: each step-down is an election, and a stream slow for
     * another reason would be stepped down every minute to no avail.
     */
    private boolean slowLeaderStepDown = false;

    public int getMaxOutstandingPublishes() {
        return maxOutstandingPublishes;
    }

    public void setMaxOutstandingPublishes(int maxOutstandingPublishes) {
        this.maxOutstandingPublishes = maxOutstandingPublishes;
    }

    public Duration getPublishTimeout() {
        return publishTimeout;
    }

    public void setPublishTimeout(Duration publishTimeout) {
        this.publishTimeout = publishTimeout;
    }

    public boolean isSlowLeaderStepDown() {
        return slowLeaderStepDown;
    }

    public void setSlowLeaderStepDown(boolean slowLeaderStepDown) {
        this.slowLeaderStepDown = slowLeaderStepDown;
    }

    public Duration getLatePubAckWindow() {
        return latePubAckWindow;
    }

    public void setLatePubAckWindow(Duration latePubAckWindow) {
        this.latePubAckWindow = latePubAckWindow;
    }

    /**
     * @param consumer the consumer settings, whose batch size (capped by max-ack-pending)
     * the transport pulls with
     * @return the transport's settings
     */
    public TransportSettings toSettings(JetStreamConsumerProperties consumer) {
        // A pull of more than max_ack_pending would only wait for acks: the batch is
        // capped by it.
        int batchSize = consumer.getMaxAckPending() > 0 ? Math.min(consumer.getBatchSize(), consumer.getMaxAckPending())
                : consumer.getBatchSize();
        return new TransportSettings(maxOutstandingPublishes, publishTimeout, batchSize);
    }

    /**
     * @param type a class being bound
     * @return whether it is this class, which validates itself while Spring Boot binds it
     */
    @Override
    public boolean supports(Class<?> type) {
        return JetStreamPublishProperties.class.isAssignableFrom(type);
    }

    /**
     * Checks the ranges; Spring Boot fails startup with each violation, naming the
     * property, its value and its origin.
     * @param target the bound properties
     * @param errors where violations go
     */
    @Override
    public void validate(Object target, Errors errors) {
        JetStreamPublishProperties publish = (JetStreamPublishProperties) target;
        PropertyChecks.atLeast(errors, "maxOutstandingPublishes", publish.getMaxOutstandingPublishes(), 1);
        PropertyChecks.atLeast(errors, "publishTimeout", publish.getPublishTimeout(), Duration.ofMillis(1));
        PropertyChecks.atLeast(errors, "latePubAckWindow", publish.getLatePubAckWindow(), Duration.ofSeconds(1));
    }

}
