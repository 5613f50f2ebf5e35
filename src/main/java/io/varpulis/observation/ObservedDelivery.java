package io.varpulis.observation;

import io.micrometer.observation.Observation;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.ForwardingDelivery;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A delivery whose process observation ends when it is settled: on its ack ({@code acked}, or {@code parked} when
 * the ack follows the DLQ's PubAck of its death envelope), on its nak ({@code nak}), or when given up unsettled
 * ({@code left}). The handler settles it exactly as it would the transport's delivery.
 */
final class ObservedDelivery extends ForwardingDelivery {

    private static final AtomicLong CORE_KEYS = new AtomicLong();

    private final Observation observation;
    private final NatsProcessContext context;
    private final Traces traces;
    private final Consumer<ObservedDelivery> ended;
    private final long startedNanos = System.nanoTime();
    private final AtomicBoolean stopped = new AtomicBoolean();
    private final String parkKey;

    ObservedDelivery(Delivery delegate, Observation observation, NatsProcessContext context, Traces traces,
                     Consumer<ObservedDelivery> ended) {
        super(delegate);
        this.observation = observation;
        this.context = context;
        this.traces = traces;
        this.ended = ended;
        this.parkKey = delegate.stream() == null ? "core:" + CORE_KEYS.incrementAndGet()
                : delegate.stream() + ":" + delegate.streamSequence();
    }

    Observation observation() {
        return observation;
    }

    NatsProcessContext context() {
        return context;
    }

    /**
     * @return the trace id of its process span, or {@code null} without a tracer
     */
    @Override
    public String traceId() {
        return traces.traceId(observation);
    }

    /**
     * Runs the code with this delivery's process observation current (and so its span, for the tracer).
     */
    @Override
    public <T> T inContext(Supplier<T> work) {
        try (Observation.Scope scope = observation.openScope()) {
            return super.inContext(work);
        }
    }

    long startedNanos() {
        return startedNanos;
    }

    /**
     * The key a park's {@code Nats-Msg-Id} ({@code dlq:{stream}:{sequence}}) names this delivery by; on core, where
     * nothing is parked, one of its own.
     */
    String parkKey() {
        return parkKey;
    }

    @Override
    protected void doAck() {
        try {
            super.doAck();
        } catch (RuntimeException e) {
            end("acked", e);
            throw e;
        }
        end("acked", null);
    }

    @Override
    protected void doNak(Duration delay) {
        try {
            super.doNak(delay);
        } catch (RuntimeException e) {
            end("nak", e);
            throw e;
        }
        end("nak", null);
    }

    /**
     * Ends the observation once, whatever ends it first (a settle, a handler's failure, a delivery given up).
     *
     * @param how   the outcome, unless the delivery was parked
     * @param error the failure to record, or {@code null}
     */
    void end(String how, Throwable error) {
        if (stopped.compareAndSet(false, true)) {
            context.settled(how);
            if (error != null) {
                observation.error(error);
            }
            ended.accept(this);
            observation.stop();
        }
    }
}
