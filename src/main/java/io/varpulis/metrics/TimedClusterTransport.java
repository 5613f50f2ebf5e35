package io.varpulis.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.nats.Subjects;
import io.varpulis.nats.Substrate;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.DeliveryHandler;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishReceipt;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A {@link ClusterTransport} that times every publish from the call to its confirmation
 * (the PubAck on JetStream, the hand-off to the client on core) as
 * {@code varpulis.events.publish{kind,outcome}}, with a percentile histogram so that
 * Prometheus can compute p99 across nodes.
 * <p>
 * Tags stay bounded whatever the topology: {@code kind} is {@code route},
 * {@code heartbeat}, {@code dlq}, {@code state} (pipeline state writes) or {@code other}
 * (never the subject, which carries group and pipeline names), {@code outcome} is
 * {@code confirmed} or {@code failed}.
 */
public class TimedClusterTransport implements ClusterTransport {

    /** The timer's name. */
    public static final String PUBLISH_TIMER = "varpulis.events.publish";

    /** Where pipeline state writes go: the subjects of JetStream key-value buckets. */
    private static final String STATE_ROOT = "$KV.";

    /**
     * Histogram range: a local PubAck takes well under a millisecond, the default publish
     * timeout is 5 s.
     */
    private static final Duration MIN_EXPECTED = Duration.ofMillis(1);

    private static final Duration MAX_EXPECTED = Duration.ofSeconds(30);

    private final ClusterTransport delegate;

    private final MeterRegistry registry;

    private final Map<String, Timer> timers = new ConcurrentHashMap<>();

    /**
     * @param delegate the transport that publishes
     * @param registry where the timer is registered
     */
    public TimedClusterTransport(ClusterTransport delegate, MeterRegistry registry) {
        this.delegate = delegate;
        this.registry = registry;
    }

    @Override
    public Substrate substrate() {
        return delegate.substrate();
    }

    /**
     * Publishes through the delegate and records the time to its confirmation or failure.
     * @param message the message
     * @return the delegate's receipt, unchanged
     */
    @Override
    public CompletableFuture<PublishReceipt> publish(OutboundMessage message) {
        return timed(message.subject(), () -> delegate.publish(message));
    }

    /**
     * Publishes the batch through the delegate, timed as one publish (of the first
     * message's kind).
     * @param messages the batch
     * @return the delegate's receipt, unchanged
     */
    @Override
    public CompletableFuture<PublishReceipt> publishAtomically(List<OutboundMessage> messages) {
        return timed(messages.get(0).subject(), () -> delegate.publishAtomically(messages));
    }

    private CompletableFuture<PublishReceipt> timed(String subject,
            Supplier<CompletableFuture<PublishReceipt>> publish) {
        long started = System.nanoTime();
        String kind = kind(subject);
        return publish.get()
            .whenComplete((receipt, error) -> timer(kind, error == null ? "confirmed" : "failed")
                .record(System.nanoTime() - started, TimeUnit.NANOSECONDS));
    }

    @Override
    public long maxPayload() {
        return delegate.maxPayload();
    }

    @Override
    public Consumption consume(ConsumerDeclaration consumer, DeliveryHandler handler) {
        return delegate.consume(consumer, handler);
    }

    @Override
    public void close() {
        delegate.close();
    }

    /**
     * @return the transport this one times
     */
    public ClusterTransport delegate() {
        return delegate;
    }

    /**
     * The {@code kind} tag of a subject: a fixed set, so that subjects with group,
     * pipeline or worker names never become tag values.
     * @param subject the published subject
     * @return {@code route}, {@code heartbeat}, {@code dlq}, {@code state} or
     * {@code other}
     */
    static String kind(String subject) {
        if (subject.startsWith(Subjects.PIPELINE_ROOT + ".")) {
            return "route";
        }
        if (subject.startsWith(Subjects.HEARTBEAT_ROOT + ".")) {
            return "heartbeat";
        }
        if (subject.startsWith(DurableNames.DLQ_ROOT + ".")) {
            return "dlq";
        }
        if (subject.startsWith(STATE_ROOT)) {
            return "state";
        }
        return "other";
    }

    private Timer timer(String kind, String outcome) {
        return timers.computeIfAbsent(kind + "|" + outcome,
                key -> Timer.builder(PUBLISH_TIMER)
                    .description("time from publish to the substrate's confirmation (PubAck on JetStream)")
                    .tags("kind", kind, "outcome", outcome)
                    .publishPercentileHistogram()
                    .minimumExpectedValue(MIN_EXPECTED)
                    .maximumExpectedValue(MAX_EXPECTED)
                    .register(registry));
    }

}
