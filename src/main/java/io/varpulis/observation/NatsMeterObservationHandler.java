package io.varpulis.observation;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.MeterObservationHandler;
import io.micrometer.observation.Observation;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The timers of the substrate's observations ({@code varpulis.nats.send},
 * {@code varpulis.nats.process}: Prometheus' {@code varpulis_nats_send_seconds} and
 * {@code varpulis_nats_process_seconds}), with the tags
 * {@link io.micrometer.core.instrument.observation.DefaultMeterObservationHandler} gives
 * them (the convention's low-cardinality key values and {@code error}), at a fraction of
 * its cost per message (issue 32): each tag set's {@link Timer} is looked up once and
 * kept, where the default handler builds and registers a timer id on every stop, and no
 * {@link LongTaskTimer} is started per message unless asked for
 * ({@code varpulis.nats.observation-long-task-timers}), which Micrometer itself made
 * optional because few read it. Spring Boot registers meter handlers first-matching in
 * bean order: ordered first, this one times the substrate's observations and leaves every
 * other to Boot's.
 * <p>
 * Tags come from the observation's convention, so a convention bean that retags them is
 * honoured; each distinct tag set is one timer, as with the default handler.
 */
public class NatsMeterObservationHandler implements MeterObservationHandler<Observation.Context> {

    private final MeterRegistry registry;

    private final boolean longTaskTimers;

    private final Map<Key, Timer> timers = new ConcurrentHashMap<>();

    // By the identity of the key values: the default conventions return one instance per
    // tag set, so a timer is
    // found without hashing its tags (a convention bean that builds them anew falls back
    // on the map above). Copied on
    // write and never changed once published, so read without a lock and without a key
    // object: that of an observation
    // without error, the message's usual case.
    private volatile Map<KeyValues, Timer> succeeded = new IdentityHashMap<>();

    private final Map<Identity, Timer> known = new ConcurrentHashMap<>();

    /**
     * @param registry where the timers are registered
     * @param longTaskTimers whether each observation also runs a long-task timer (as the
     * default handler does)
     */
    public NatsMeterObservationHandler(MeterRegistry registry, boolean longTaskTimers) {
        this.registry = registry;
        this.longTaskTimers = longTaskTimers;
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
        return context instanceof NatsSendContext || context instanceof NatsProcessContext;
    }

    @Override
    public void onStart(Observation.Context context) {
        long now = System.nanoTime();
        if (context instanceof NatsSendContext send) {
            send.started(now);
        }
        else if (context instanceof NatsProcessContext process) {
            process.started(now);
        }
        if (longTaskTimers) {
            // Tagged with what is known at the start: the destination template (and the
            // durable), not the outcome.
            String destination = context instanceof NatsSendContext send ? Destinations.of(send.subject())
                    : Destinations.of(((NatsProcessContext) context).consumer().filterSubject());
            LongTaskTimer.Builder active = LongTaskTimer.builder(context.getName() + ".active")
                .tag("messaging.system", "nats")
                .tag("messaging.destination.name", destination);
            if (context instanceof NatsProcessContext process) {
                active.tag("messaging.consumer.group.name", process.consumer().durable());
            }
            context.put(LongTaskTimer.Sample.class, active.register(registry).start());
        }
    }

    @Override
    public void onStop(Observation.Context context) {
        long started = context instanceof NatsSendContext send ? send.startedNanos()
                : ((NatsProcessContext) context).startedNanos();
        KeyValues tags = context.getLowCardinalityKeyValues();
        if (context.getError() == null) {
            Timer timer = succeeded.get(tags);
            if (timer != null && timer.getId().getName().equals(context.getName())) {
                timer.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
                stopLongTask(context);
                return;
            }
        }
        String error = context.getError() == null ? "none" : context.getError().getClass().getSimpleName();
        Identity identity = new Identity(context.getName(), tags, error);
        Timer timer = known.get(identity);
        if (timer == null) {
            timer = timers.computeIfAbsent(new Key(context.getName(), tags, error),
                    key -> Timer.builder(key.name()).tags(tags(key.tags(), key.error())).register(registry));
            if (known.size() < BoundedCache.MAX_CACHED) {
                known.put(identity, timer);
            }
        }
        else if (context.getError() == null && !succeeded.containsKey(tags)) {
            // The same instance seen twice: a convention that keeps its key values (a new
            // one each time never is).
            remember(tags, timer);
        }
        timer.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
        stopLongTask(context);
    }

    private synchronized void remember(KeyValues tags, Timer timer) {
        if (succeeded.size() < BoundedCache.MAX_CACHED) {
            Map<KeyValues, Timer> copy = new IdentityHashMap<>(succeeded);
            copy.put(tags, timer);
            succeeded = copy;
        }
    }

    private void stopLongTask(Observation.Context context) {
        if (longTaskTimers) {
            LongTaskTimer.Sample active = context.get(LongTaskTimer.Sample.class);
            if (active != null) {
                active.stop();
            }
        }
    }

    private static List<Tag> tags(KeyValues keyValues, String error) {
        List<Tag> tags = new ArrayList<>();
        for (KeyValue keyValue : keyValues) {
            tags.add(Tag.of(keyValue.getKey(), keyValue.getValue()));
        }
        if (error != null) {
            tags.add(Tag.of("error", error));
        }
        return tags;
    }

    /**
     * One timer's identity: the observation's name, its low-cardinality key values and
     * its error.
     */
    private record Key(String name, KeyValues tags, String error) {
    }

    /** A key by the identity of its key values and name. */
    private record Identity(String name, KeyValues tags, String error) {
        @Override
        public boolean equals(Object other) {
            return other instanceof Identity that && that.name == name && that.tags == tags && that.error.equals(error);
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(tags) * 31 + error.hashCode();
        }
    }

}
