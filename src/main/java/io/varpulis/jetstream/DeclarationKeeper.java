package io.varpulis.jetstream;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.PurgeOptions;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.StreamInfo;
import io.varpulis.support.DaemonThreads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps what the node declared on the servers (SPEC section 21), in the manner of Spring
 * AMQP's {@code RabbitAdmin}, which declares its queues again when the broker lost them:
 * every {@code check-interval} it asks about each declared stream, key-value bucket and
 * durable consumer in use ({@link JetStreamAdmin}); one that was there and is found gone
 * twice in a row (not a server still starting) is a loss, said at ERROR with what went
 * with it ({@link StreamSequences}: the messages this node published and the stream
 * acknowledged, per subject; the consumers' acknowledgements) and counted
 * ({@link JetStreamLosses}), then declared again: a stream or bucket with its sequences
 * starting after the last one seen, then its consumers. A stream whose last sequence went
 * below one seen before is said the same way (it cannot be declared again: it exists).
 * <p>
 * Why it matters: nats-server syncs its store every 2 minutes by default, so a power loss
 * of every server can take streams, consumers and buckets younger than that with it
 * (issue 43: the servers came back with no stream at all, and the cluster never
 * recovered). With provisioning off, losses are said and nothing is created.
 */
public class DeclarationKeeper implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DeclarationKeeper.class);

    private final Connection connection;

    private final JetStreamAdmin admin;

    private final boolean redeclare;

    private final ScheduledExecutorService checker;

    /** Streams (and bucket streams) seen present at least once. */
    private final Set<String> seen = new HashSet<>();

    /** Streams found absent by the last check. */
    private final Set<String> absent = new HashSet<>();

    /**
     * When each stream was created, as last seen: a stream created again by another node
     * (which found it gone first) is a loss here too.
     */
    private final Map<String, ZonedDateTime> created = new HashMap<>();

    /** Consumers ({@code stream/durable}) seen present at least once. */
    private final Set<String> consumersSeen = new HashSet<>();

    /** Consumers found absent by the last check. */
    private final Set<String> consumersAbsent = new HashSet<>();

    /**
     * Streams and consumers said lost and not declared again yet (said once, declared at
     * every check until it works).
     */
    private final Set<String> lost = new HashSet<>();

    private final AtomicBoolean checkAsked = new AtomicBoolean();

    /**
     * @param connection the node's connection
     * @param admin knows the declarations, the sequences seen and the losses
     * @param interval how often the servers are asked; {@link Duration#ZERO} never
     * (checks only when {@link #check()} is called)
     * @param redeclare whether what is gone is declared again
     * ({@code varpulis.nats.jetstream.provision})
     */
    public DeclarationKeeper(Connection connection, JetStreamAdmin admin, Duration interval, boolean redeclare) {
        this.connection = connection;
        this.admin = admin;
        this.redeclare = redeclare;
        this.checker = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("varpulis-declarations"));
        if (!interval.isZero()) {
            checker.scheduleWithFixedDelay(this::checkQuietly, interval.toMillis(), interval.toMillis(),
                    TimeUnit.MILLISECONDS);
            // A PubAck below an earlier one: ask now, before new messages pass the old
            // last sequence and hide the loss.
            admin.sequences().onBackwards(stream -> {
                if (checkAsked.compareAndSet(false, true)) {
                    try {
                        checker.execute(() -> {
                            checkAsked.set(false);
                            checkQuietly();
                        });
                    }
                    catch (RejectedExecutionException closed) {
                        // Closed: nothing more is checked.
                    }
                }
            });
        }
    }

    /** Stops checking. */
    @Override
    public void close() {
        checker.shutdownNow();
    }

    private void checkQuietly() {
        try {
            check();
        }
        catch (RuntimeException e) {
            log.warn("checking the declared streams and consumers failed: {}", e.toString());
        }
    }

    /**
     * One check of every declaration (on the caller's thread; the schedule's thread
     * otherwise). Nothing is asked while the connection is not connected; a stream or
     * consumer the server does not answer about is asked again next time.
     */
    public synchronized void check() {
        if (connection.getStatus() != Connection.Status.CONNECTED) {
            return;
        }
        admin.declaredStreams().forEach((name, declaration) -> keep(declaration, null));
        admin.declaredBuckets().forEach((bucket, declaration) -> keep(declaration, bucket));
        for (ConsumerDeclaration consumer : admin.declaredConsumers()) {
            if (!absent.contains(consumer.stream())) {
                keep(consumer);
            }
        }
    }

    /**
     * @param bucket the bucket whose stream it is, or {@code null} for a stream
     */
    private void keep(StreamDeclaration declaration, String bucket) {
        String stream = declaration.name();
        long highestBefore = admin.sequences().highest(stream);
        Optional<StreamInfo> info;
        try {
            info = admin.streamInfo(stream);
        }
        catch (IOException | JetStreamApiException noAnswer) {
            return;
        }
        String what = bucket == null ? "stream " + stream : "key-value bucket " + bucket + " (stream " + stream + ")";
        if (info.isPresent()) {
            seen.add(stream);
            absent.remove(stream);
            ZonedDateTime before = created.put(stream, info.get().getCreateTime());
            if (before != null && !before.equals(info.get().getCreateTime())) {
                // Gone and created again by another node between two checks.
                long first = Math.max(1, info.get().getConfiguration().getFirstSequence());
                streamLost(stream, bucket, highestBefore, what,
                        "was created again since the last check (another node found it gone)",
                        "it is used as it is now",
                        admin.sequences()
                            .recreated(stream, first, info.get().getCreateTime().toInstant(),
                                    info.get().getStreamState().getLastSequence()));
                consumersOf(stream).forEach(c -> consumerGone(c, "its stream was created again"));
                if (bucket != null && admin.revisionsAreEpochs(bucket) && redeclare
                        && info.get().getStreamState().getLastSequence() < highestBefore) {
                    lift(stream, bucket, highestBefore);
                }
                return;
            }
            List<JetStreamLoss> wentBack = admin.sequences()
                .observed(stream, highestBefore, info.get().getStreamState().getLastSequence());
            wentBack.forEach(admin.losses()::record);
            if (!wentBack.isEmpty() && bucket != null && admin.revisionsAreEpochs(bucket) && redeclare) {
                lift(stream, bucket, highestBefore);
            }
            return;
        }
        if (!seen.contains(stream) || absent.add(stream)) {
            return;
        }
        long highest = admin.sequences().highest(stream);
        if (lost.add(stream)) {
            streamLost(stream, bucket, highest, what, "is gone from the servers",
                    redeclare ? "declaring it again" : "provisioning is off: create it",
                    admin.sequences().gone(stream));
        }
        if (!redeclare) {
            return;
        }
        try {
            StreamInfo now = admin.redeclare(declaration, highest + 1);
            created.put(stream, now.getCreateTime());
            // Its marks from where it starts: after the last one, or at 1 on a server
            // older than 2.10 (it ignores first_seq and reuses the sequences). What it
            // names lost is nothing: gone() above took every PubAck remembered.
            admin.sequences()
                .recreated(stream, now.getStreamState().getFirstSequence(), now.getCreateTime().toInstant(),
                        now.getStreamState().getLastSequence());
            absent.remove(stream);
            lost.remove(stream);
            log.info("{} declared again, its sequences starting at {}", what, highest + 1);
            consumersOf(stream).forEach(c -> consumerGone(c, "its stream was gone"));
        }
        catch (IOException | JetStreamApiException | RuntimeException e) {
            log.warn("could not declare {} again ({}); trying at the next check", what, e.toString());
        }
    }

    /**
     * Lifts a bucket whose revisions are epochs past the last one seen (a purge up to a
     * sequence beyond its last one moves its first sequence there): the leases it held
     * after going back are gone, and the next leader takes its lease at a revision above
     * every earlier epoch, which the workers accept (they refuse an epoch below one they
     * saw). A leader elected on the bucket gone back stops leading until then.
     */
    private void lift(String stream, String bucket, long highest) {
        try {
            admin.management().purgeStream(stream, PurgeOptions.builder().sequence(highest + 1).build());
            log.warn(
                    "key-value bucket {} went back below revision {}: its revisions are epochs, so it was emptied "
                            + "and starts at revision {}; its leases are taken again above every earlier epoch",
                    bucket, highest, highest + 1);
        }
        catch (IOException | JetStreamApiException e) {
            log.warn("could not lift key-value bucket {} past revision {} ({}); leaders elected on it may have "
                    + "epochs the workers refuse", bucket, highest, e.toString());
        }
    }

    private List<ConsumerDeclaration> consumersOf(String stream) {
        return admin.declaredConsumers().stream().filter(c -> c.stream().equals(stream)).toList();
    }

    /**
     * @param published what this node published to the stream lost and it acknowledged
     * ({@link StreamSequences#gone}, {@link StreamSequences#recreated})
     */
    private void streamLost(String stream, String bucket, long highest, String what, String how, String then,
            List<JetStreamLoss> published) {
        admin.losses()
            .record(new JetStreamLoss(bucket == null ? JetStreamLoss.Kind.STREAM_GONE : JetStreamLoss.Kind.BUCKET_GONE,
                    stream, bucket == null ? "" : bucket, highest > 0 ? 1 : 0, highest, -1,
                    what + " " + how + (highest > 0 ? " (it held sequences up to " + highest + ")" : "")
                            + ": everything it held is lost (a power loss of servers without sync_interval: always, "
                            + "or deleted by hand); " + then,
                    Instant.now()));
        published.forEach(admin.losses()::record);
    }

    private void keep(ConsumerDeclaration consumer) {
        String key = consumer.stream() + "/" + consumer.durable();
        Optional<ConsumerInfo> info;
        try {
            info = admin.consumerInfo(consumer.stream(), consumer.durable());
        }
        catch (IOException | JetStreamApiException noAnswer) {
            return;
        }
        if (info.isPresent()) {
            consumersSeen.add(key);
            consumersAbsent.remove(key);
            if (info.get().getAckFloor() != null) {
                admin.sequences()
                    .acknowledged(consumer.stream(), consumer.durable(), info.get().getAckFloor().getStreamSequence());
            }
            return;
        }
        if (consumersSeen.contains(key) && !consumersAbsent.add(key)) {
            consumerGone(consumer, "it is gone from the servers");
        }
    }

    private void consumerGone(ConsumerDeclaration consumer, String why) {
        String key = consumer.stream() + "/" + consumer.durable();
        if (lost.add(key)) {
            consumerLost(consumer, why);
        }
        if (!redeclare) {
            return;
        }
        try {
            admin.declareConsumer(consumer);
            consumersAbsent.remove(key);
            lost.remove(key);
            log.info("durable consumer {} on stream {} declared again", consumer.durable(), consumer.stream());
        }
        catch (RuntimeException e) {
            log.warn("could not declare consumer {} on stream {} again ({}); trying at the next check",
                    consumer.durable(), consumer.stream(), e.toString());
        }
    }

    private void consumerLost(ConsumerDeclaration consumer, String why) {
        long floor = admin.sequences().consumerGone(consumer.stream(), consumer.durable());
        admin.losses()
            .record(new JetStreamLoss(JetStreamLoss.Kind.CONSUMER_GONE, consumer.stream(), consumer.durable(), 0, 0, -1,
                    "durable consumer " + consumer.durable() + " on stream " + consumer.stream() + " is lost (" + why
                            + (floor > 0 ? "; it had acknowledged up to stream sequence " + floor : "") + "); "
                            + (redeclare ? "declaring it again" : "provisioning is off: create it"),
                    Instant.now()));
    }

}
