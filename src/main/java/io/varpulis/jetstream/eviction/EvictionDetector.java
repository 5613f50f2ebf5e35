package io.varpulis.jetstream.eviction;

import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.NUID;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.DeliverPolicy;
import io.nats.client.api.StreamInfo;
import io.nats.client.api.StreamInfoOptions;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.support.DaemonThreads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Counts the events a stream drops by a limit before they were consumed (SPEC section 21,
 * every exit counted): undelivered events of a route edge or listener evicted by max_age
 * or max_bytes, and parked events {@code VARPULIS_DLQ} discards at max_msgs. Each is
 * logged at ERROR with its stream sequences (an event evicted unconsumed is an input
 * never applied: a missed alert) and counted as {@code varpulis.events.evicted}.
 * <p>
 * Every interval it reads each watched stream's page of the {@link EvictionLedger}, asks
 * the server about the stream and its watched consumers, and compares
 * ({@link Evictions}); when the stream's first sequence has passed a consumer's position
 * it counts the events stored for that consumer since (a short-lived consumer starting at
 * that sequence, whose {@code num_pending} the server counts) and asks again. It counts
 * only if its new page is written at the revision it read, so that of the nodes watching
 * one stream exactly one counts each interval.
 */
public class EvictionDetector implements SmartLifecycle, AutoCloseable {

    /** A consumer nobody watched for this long leaves the ledger. */
    static final Duration FORGET_AFTER = Duration.ofDays(1);

    /** How long a counting consumer outlives a node that died before deleting it. */
    private static final Duration PROBE_INACTIVE_THRESHOLD = Duration.ofSeconds(30);

    private static final Logger log = LoggerFactory.getLogger(EvictionDetector.class);

    private final JetStreamAdmin admin;

    private final EvictionLedger ledger;

    private final EvictionSources sources;

    private final EvictionListener listener;

    private final Duration interval;

    private final Map<String, String> lastFailure = new HashMap<>();

    private final Object rounds = new Object();

    private ScheduledExecutorService scheduler;

    /**
     * @param admin asks the server about streams and consumers
     * @param ledger the observations shared by the nodes watching
     * @param sources what to watch, asked every round
     * @param listener told what is watched and what was evicted
     * @param interval how often to look
     */
    public EvictionDetector(JetStreamAdmin admin, EvictionLedger ledger, EvictionSources sources,
            EvictionListener listener, Duration interval) {
        this.admin = admin;
        this.ledger = ledger;
        this.sources = sources;
        this.listener = listener;
        this.interval = interval;
    }

    /**
     * Looks once at every watched stream; a stream that cannot be asked is logged and
     * skipped.
     */
    public void round() {
        synchronized (rounds) {
            roundOfEveryStream();
        }
    }

    private void roundOfEveryStream() {
        Map<String, List<WatchedConsumer>> byStream = new LinkedHashMap<>();
        for (WatchedConsumer consumer : sources.consumers()) {
            byStream.computeIfAbsent(consumer.stream(), s -> new ArrayList<>()).add(consumer);
        }
        Set<String> unconsumed = sources.unconsumedStreams();
        Set<String> streams = new TreeSet<>(byStream.keySet());
        streams.addAll(unconsumed);
        for (String stream : streams) {
            try {
                look(stream, byStream.getOrDefault(stream, List.of()), unconsumed.contains(stream));
                lastFailure.remove(stream);
            }
            catch (IOException | JetStreamApiException | RuntimeException e) {
                String why = e.toString();
                if (!why.equals(lastFailure.put(stream, why))) {
                    log.warn("evictions from stream {} not counted this round: {}; asking again in {} s", stream, why,
                            interval.toSeconds());
                }
            }
        }
    }

    private void look(String stream, List<WatchedConsumer> consumers, boolean unconsumed)
            throws IOException, JetStreamApiException {
        Optional<EvictionLedger.Read> read = ledger.read(stream);
        EvictionLedger.Page before = read.map(EvictionLedger.Read::page)
            .orElse(new EvictionLedger.Page(Map.of(), Map.of(), null));
        Map<WatchedConsumer, Optional<ConsumerInfo>> infos = new LinkedHashMap<>();
        for (WatchedConsumer consumer : consumers) {
            infos.put(consumer, admin.consumerInfo(stream, consumer.durable()));
        }
        Optional<StreamInfo> streamInfo = admin.streamInfo(stream);
        if (streamInfo.isEmpty()) {
            return; // a missing stream is the health's to report, and no eviction
        }
        long now = System.currentTimeMillis();
        Map<String, Observation> observed = new HashMap<>();
        Map<String, Long> seenAt = new HashMap<>();
        before.consumers().forEach((durable, observation) -> {
            long seen = before.seenAt().getOrDefault(durable, 0L);
            if (now - seen < FORGET_AFTER.toMillis()) {
                observed.put(durable, observation);
                seenAt.put(durable, seen);
            }
        });
        List<Evicted> found = new ArrayList<>();
        for (Map.Entry<WatchedConsumer, Optional<ConsumerInfo>> entry : infos.entrySet()) {
            WatchedConsumer consumer = entry.getKey();
            listener.watching(consumer);
            Observation after = observe(consumer, entry.getValue(), streamInfo.get());
            Observation last = before.consumers().get(consumer.durable());
            if (last != null) {
                long arrivals = 0;
                if (Evictions.needsArrivals(last, after)) {
                    // Counted before the consumer is asked again, so that every arrival
                    // counted is in its pending.
                    arrivals = arrivals(stream, consumer.filterSubject(), last.last() + 1);
                    Optional<StreamInfo> streamAgain = admin.streamInfo(stream);
                    if (streamAgain.isEmpty()) {
                        continue;
                    }
                    after = observe(consumer, admin.consumerInfo(stream, consumer.durable()), streamAgain.get());
                }
                Evictions.ofConsumer(last, after, arrivals, consumer.runs())
                    .ifPresent(count -> found.add(new Evicted(stream, consumer.durable(), consumer.unit(),
                            count.events(), count.bound(), count.from(), count.to())));
            }
            observed.put(consumer.durable(), after);
            seenAt.put(consumer.durable(), now);
        }
        StreamObservation whole = null;
        if (unconsumed) {
            listener.watchingStream(stream);
            whole = StreamObservation.of(streamInfo.get());
            if (before.stream() != null) {
                Evictions.ofStream(before.stream(), whole)
                    .ifPresent(count -> found.add(new Evicted(stream, Evicted.NO_CONSUMER, Evicted.NO_CONSUMER,
                            count.events(), count.bound(), count.from(), count.to())));
            }
        }
        else if (before.stream() != null) {
            whole = before.stream();
        }
        EvictionLedger.Page page = new EvictionLedger.Page(observed, seenAt, whole);
        if (ledger.write(stream, page, read.map(EvictionLedger.Read::revision).orElse(0L))) {
            found.forEach(this::report);
        }
    }

    /**
     * @param info the consumer's info, empty when the durable does not exist (a route
     * edge whose pipeline was never placed)
     * @param stream the stream's info, asked after the consumer's
     * @return what they say; for an absent durable, the events on its subject, asked now
     * with the stream's state
     */
    private Observation observe(WatchedConsumer consumer, Optional<ConsumerInfo> info, StreamInfo stream)
            throws IOException, JetStreamApiException {
        if (info.isPresent()) {
            return Observation.of(info.get(), stream);
        }
        StreamInfo subject = admin.management()
            .getStreamInfo(consumer.stream(), StreamInfoOptions.filterSubjects(consumer.filterSubject()));
        long events = subject.getStreamState()
            .getSubjects()
            .stream()
            .mapToLong(io.nats.client.api.Subject::getCount)
            .sum();
        return Observation.ofAbsent(events, subject);
    }

    /**
     * Events matching the filter from a sequence on, as the server counts them for a
     * consumer starting there ({@code num_pending} at its creation); the consumer is
     * deleted at once (and by the server after 30 s idle, should this node die first).
     */
    private long arrivals(String stream, String filterSubject, long fromSequence)
            throws IOException, JetStreamApiException {
        JetStreamManagement jsm = admin.management();
        ConsumerInfo probe = jsm.addOrUpdateConsumer(stream,
                ConsumerConfiguration.builder()
                    .name("varpulis_count_" + NUID.nextGlobal())
                    .filterSubject(filterSubject)
                    .deliverPolicy(DeliverPolicy.ByStartSequence)
                    .startSequence(fromSequence)
                    .ackPolicy(AckPolicy.None)
                    .inactiveThreshold(PROBE_INACTIVE_THRESHOLD)
                    .numReplicas(1)
                    .memStorage(true)
                    .build());
        try {
            return probe.getNumPending();
        }
        finally {
            try {
                jsm.deleteConsumer(stream, probe.getName());
            }
            catch (IOException | JetStreamApiException e) {
                log.debug("counting consumer {} on {} left to its inactive threshold: {}", probe.getName(), stream,
                        e.toString());
            }
        }
    }

    private void report(Evicted evicted) {
        String range = evicted.fromSequence() == evicted.toSequence() ? "sequence " + evicted.fromSequence()
                : "sequences " + evicted.fromSequence() + "-" + evicted.toSequence();
        if (Evicted.NO_CONSUMER.equals(evicted.consumer())) {
            log.error("stream {} discarded {} {} parked event(s) at its max_msgs, stream {}: their payloads and death "
                    + "envelopes are gone. Replay or purge parked events before the stream is full, or raise its "
                    + "max_msgs (varpulis.nats.jetstream.dlq.max-msgs)", evicted.stream(), evicted.bound().words(),
                    evicted.events(), range);
        }
        else {
            log.error("stream {} dropped {} {} event(s) of {} (durable {}) before they were consumed, stream {}: a "
                    + "limit evicted them (max_age, max_bytes) or they were purged. Each is an input never applied: "
                    + "a missed alert, if it would have made one. Its consumer ran nowhere or fell further behind "
                    + "than the stream keeps: check that it is placed and keeps up (docs/OPERATING.md, "
                    + "VarpulisEventsEvicted)", evicted.stream(), evicted.bound().words(), evicted.events(),
                    evicted.unit(), evicted.consumer(), range);
        }
        listener.evicted(evicted);
    }

    private void roundQuietly() {
        try {
            round();
        }
        catch (RuntimeException e) {
            // Never the end of the schedule: the next round looks again.
            log.warn("eviction round failed: {}", e.toString());
        }
    }

    /** Looks now (in the background), then every interval. */
    @Override
    public synchronized void start() {
        if (scheduler != null) {
            return;
        }
        scheduler = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("varpulis-evictions"));
        scheduler.scheduleWithFixedDelay(this::roundQuietly, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void stop() {
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler = null;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return scheduler != null;
    }

    /** Stops looking. */
    @Override
    public void close() {
        stop();
    }

}
