package io.varpulis.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.varpulis.jetstream.eviction.Evicted;
import io.varpulis.jetstream.eviction.EvictionListener;
import io.varpulis.jetstream.eviction.WatchedConsumer;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code varpulis.events.evicted{stream,consumer,unit}}: events a stream dropped by a
 * limit before they were consumed (a route edge's or listener's undelivered events past
 * max_age or max_bytes), and parked events {@code VARPULIS_DLQ} discarded at max_msgs
 * ({@code consumer} and {@code unit} {@value Evicted#NO_CONSUMER}). Each watched
 * consumer's counter exists at 0 from the first round that sees it, so that Prometheus'
 * {@code increase} sees the first eviction. Of the nodes watching a stream one counts
 * each eviction: sum the counter over instances.
 */
public class EvictionMeters implements EvictionListener {

    /** The counter's name. */
    public static final String EVICTED = "varpulis.events.evicted";

    private final MeterRegistry registry;

    private final Map<String, Counter> counters = new ConcurrentHashMap<>();

    /**
     * @param registry where the counters are registered
     */
    public EvictionMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void watching(WatchedConsumer consumer) {
        counter(consumer.stream(), consumer.durable(), consumer.unit());
    }

    @Override
    public void watchingStream(String stream) {
        counter(stream, Evicted.NO_CONSUMER, Evicted.NO_CONSUMER);
    }

    @Override
    public void evicted(Evicted evicted) {
        counter(evicted.stream(), evicted.consumer(), evicted.unit()).increment(evicted.events());
    }

    private Counter counter(String stream, String consumer, String unit) {
        return counters.computeIfAbsent(stream + "|" + consumer + "|" + unit,
                key -> Counter.builder(EVICTED)
                    .description("events a stream dropped by a limit before they were consumed")
                    .tags("stream", stream, "consumer", consumer, "unit", unit)
                    .register(registry));
    }

}
