package io.varpulis.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.StreamInfo;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.support.DaemonThreads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Consumer lag and stream size gauges, refreshed from the server on a schedule (never per
 * message): {@code varpulis.consumer.pending{consumer}} (messages not yet delivered),
 * {@code varpulis.consumer.ack.pending{consumer}} (delivered, not yet acked),
 * {@code varpulis.stream.messages{stream}}, {@code varpulis.stream.bytes{stream}}
 * (bytes), their limits {@code varpulis.stream.max.messages{stream}} and
 * {@code varpulis.stream.max.bytes{stream}} (the stream's max_msgs and max_bytes, -1 for
 * none), {@code varpulis.dlq.depth{stream}} (events parked in {@code VARPULIS_DLQ}, the
 * one gauge to alert on for parking), and {@code varpulis.jetstream.available} (1 when
 * the last refresh got an answer for every declared stream, 0 when JetStream did not
 * answer or a stream is missing: what makes the node unready).
 */
public class ConsumerLagMetrics implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ConsumerLagMetrics.class);

    private final JetStreamAdmin admin;

    private final MeterRegistry registry;

    private final Map<String, AtomicLong> values = new ConcurrentHashMap<>();

    private final ScheduledExecutorService scheduler;

    private final AtomicLong available = new AtomicLong();

    /**
     * Starts polling.
     * @param admin knows the declared streams and consumers
     * @param registry where the gauges are registered
     * @param interval how often the server is asked
     */
    public ConsumerLagMetrics(JetStreamAdmin admin, MeterRegistry registry, Duration interval) {
        this.admin = admin;
        this.registry = registry;
        Gauge.builder("varpulis.jetstream.available", available, AtomicLong::get)
            .description("1 when JetStream answered for every declared stream at the last refresh, else 0")
            .register(registry);
        this.scheduler = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("varpulis-lag-metrics"));
        scheduler.scheduleWithFixedDelay(this::refresh, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Asks the server once for every declared consumer and stream and updates the gauges.
     */
    public void refresh() {
        boolean everyStream = true;
        try {
            for (ConsumerDeclaration c : admin.declaredConsumers()) {
                admin.consumerInfo(c.stream(), c.durable()).ifPresent(info -> consumer(c.durable(), info));
            }
            for (String stream : admin.declaredStreams().keySet()) {
                Optional<StreamInfo> info = admin.streamInfo(stream);
                info.ifPresent(found -> stream(stream, found));
                everyStream &= info.isPresent();
            }
        }
        catch (Exception e) {
            everyStream = false;
            log.debug("consumer lag refresh failed: {}", e.toString());
        }
        available.set(everyStream ? 1 : 0);
    }

    private void consumer(String durable, ConsumerInfo info) {
        gauge("varpulis.consumer.pending", "consumer", durable, info.getNumPending());
        gauge("varpulis.consumer.ack.pending", "consumer", durable, info.getNumAckPending());
    }

    private void stream(String name, StreamInfo info) {
        gauge("varpulis.stream.messages", "stream", name, info.getStreamState().getMsgCount());
        gauge("varpulis.stream.bytes", "stream", name, info.getStreamState().getByteCount());
        gauge("varpulis.stream.max.messages", "stream", name, info.getConfiguration().getMaxMsgs());
        gauge("varpulis.stream.max.bytes", "stream", name, info.getConfiguration().getMaxBytes());
        if (name.equals(VarpulisJetStream.DLQ_STREAM)) {
            gauge("varpulis.dlq.depth", "stream", name, info.getStreamState().getMsgCount());
        }
    }

    private void gauge(String name, String tag, String value, long current) {
        values.computeIfAbsent(name + "|" + value, key -> {
            AtomicLong holder = new AtomicLong();
            Gauge.builder(name, holder, AtomicLong::get).tag(tag, value).register(registry);
            return holder;
        }).set(current);
    }

    /** Stops polling. */
    @Override
    public void close() {
        scheduler.shutdownNow();
    }

}
