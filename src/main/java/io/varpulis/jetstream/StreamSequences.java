package io.varpulis.jetstream;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * What a node knows of its streams' sequences, to tell what the servers lost (SPEC
 * section 21): per stream the highest sequence it saw (a stream info's last sequence, a
 * PubAck), the sequences and subjects of its last {@value #PUBLISHED_KEPT} PubAcks, and
 * per durable consumer the highest ack floor it saw. A stream whose last sequence goes
 * below that, or that is gone, then names what went with it: the messages published here
 * and acknowledged, per subject (a route edge's), and the acknowledgements past its end.
 * <p>
 * What a node cannot know: messages other processes published (their nodes say them), or
 * those this node published before it started or beyond its last {@value #PUBLISHED_KEPT}
 * PubAcks of the stream ("at least"); whether a consumer had received a lost message
 * before the loss (an acknowledged one was applied). A stream another node created again
 * is told from the one lost by its first sequence and its creation time (the server's
 * clock, against this node's: a PubAck within their skew of the creation may be put on
 * the wrong side). Thread-safe; a PubAck costs one uncontended lock.
 */
public final class StreamSequences {

    /** PubAcks remembered per stream. */
    static final int PUBLISHED_KEPT = 16_384;

    private final Map<String, Marks> streams = new ConcurrentHashMap<>();

    private final Map<String, Long> ackFloors = new ConcurrentHashMap<>();

    private final List<Consumer<String>> backwards = new CopyOnWriteArrayList<>();

    private final Clock clock;

    /** Remembers on the system clock. */
    public StreamSequences() {
        this(Clock.systemUTC());
    }

    /**
     * @param clock when a PubAck came, to tell a stream created again from the one lost
     */
    StreamSequences(Clock clock) {
        this.clock = clock;
    }

    /**
     * @param stream the stream that acknowledged the message
     * @param subject its subject
     * @param sequence its stream sequence
     */
    public void published(String stream, String subject, long sequence) {
        if (marks(stream).published(subject, sequence, clock.millis())) {
            backwards.forEach(listener -> listener.accept(stream));
        }
    }

    /**
     * @param listener told (with the stream) when a PubAck's sequence is below one seen
     * before: the stream may have gone back, and is worth asking about now, before new
     * messages pass the old last sequence. PubAcks of one stream come in order but for a
     * publish answered late, so this is a hint, never a loss by itself.
     */
    public void onBackwards(Consumer<String> listener) {
        backwards.add(listener);
    }

    /**
     * @param stream a stream
     * @param durable a durable consumer on it
     * @param ackFloor the stream sequence up to which it acknowledged everything
     */
    public void acknowledged(String stream, String durable, long ackFloor) {
        ackFloors.merge(stream + "/" + durable, ackFloor, Math::max);
    }

    /**
     * @param stream a stream
     * @return the highest sequence seen in it, 0 when none
     */
    public long highest(String stream) {
        Marks marks = streams.get(stream);
        return marks == null ? 0 : marks.highest();
    }

    /**
     * A stream info read: when its last sequence is below one seen before the request was
     * sent, the messages between are gone; they are named, and the marks lowered to it
     * (said once). A PubAck that came while the request was under way is not compared:
     * its message may have been stored after the stream's answer.
     * @param stream the stream
     * @param highestBefore {@link #highest} taken before the stream info was asked for
     * @param lastSequence its last sequence in the answer
     * @return the losses found ({@link JetStreamLoss.Kind#STREAM_WENT_BACK},
     * {@link JetStreamLoss.Kind#PUBLISHED_LOST} per subject,
     * {@link JetStreamLoss.Kind#ACKED_PAST_END} per consumer), empty when none
     */
    public List<JetStreamLoss> observed(String stream, long highestBefore, long lastSequence) {
        Marks marks = marks(stream);
        long highest = highestBefore;
        if (highest <= lastSequence) {
            marks.raise(lastSequence);
            return List.of();
        }
        marks.lower(lastSequence);
        Instant now = Instant.now();
        List<JetStreamLoss> losses = new ArrayList<>();
        losses.add(new JetStreamLoss(JetStreamLoss.Kind.STREAM_WENT_BACK, stream, "", lastSequence + 1, highest,
                highest - lastSequence,
                "stream " + stream + " went back: its last sequence is " + lastSequence + ", below the " + highest
                        + " seen before; messages " + (lastSequence + 1) + "-" + highest + " it had acknowledged are "
                        + "gone (a power loss of servers without sync_interval: always?)",
                now));
        losses.addAll(marks.lost(stream, lastSequence, (sequence, at) -> sequence > lastSequence, now));
        losses.addAll(ackedPastEnd(stream, lastSequence, now));
        return losses;
    }

    /**
     * A stream found gone: what this node published to it and the stream acknowledged is
     * named. The highest sequence seen is kept: the stream declared again starts after it
     * ({@link #highest}); the consumers' acknowledgements are forgotten one by one
     * ({@link #consumerGone}).
     * @param stream the stream
     * @return the losses ({@link JetStreamLoss.Kind#PUBLISHED_LOST} per subject)
     */
    public List<JetStreamLoss> gone(String stream) {
        Marks marks = marks(stream);
        return marks.lost(stream, 0, (sequence, at) -> true, Instant.now());
    }

    /**
     * A stream found created again by another node, which found it gone first: what this
     * node published to the stream lost and it acknowledged is named, as for
     * {@link #gone}; its PubAcks from the new stream are not (sequences from
     * {@code firstSequence} on, come after {@code created}: the node that created it
     * again may have seen fewer sequences than this one, so they can be the same
     * numbers). Its sequences are compared from its last one on.
     * @param stream the stream
     * @param firstSequence the new stream's first sequence
     * @param created when the new stream was created (the server's clock)
     * @param lastSequence its last sequence now
     * @return the losses ({@link JetStreamLoss.Kind#PUBLISHED_LOST} per subject)
     */
    public List<JetStreamLoss> recreated(String stream, long firstSequence, Instant created, long lastSequence) {
        long createdMillis = created.toEpochMilli();
        Marks marks = marks(stream);
        List<JetStreamLoss> losses = marks.lost(stream, 0,
                (sequence, at) -> sequence < firstSequence || at < createdMillis, Instant.now());
        marks.lower(lastSequence);
        return losses;
    }

    /**
     * @param stream a stream
     * @param durable a consumer found gone
     * @return the highest ack floor seen for it, 0 when none; forgotten
     */
    public long consumerGone(String stream, String durable) {
        Long floor = ackFloors.remove(stream + "/" + durable);
        return floor == null ? 0 : floor;
    }

    private List<JetStreamLoss> ackedPastEnd(String stream, long lastSequence, Instant now) {
        List<JetStreamLoss> losses = new ArrayList<>();
        for (Map.Entry<String, Long> floor : ackFloors.entrySet()) {
            if (floor.getKey().startsWith(stream + "/") && floor.getValue() > lastSequence) {
                String durable = floor.getKey().substring(stream.length() + 1);
                losses.add(new JetStreamLoss(JetStreamLoss.Kind.ACKED_PAST_END, stream, durable, lastSequence + 1,
                        floor.getValue(), floor.getValue() - lastSequence,
                        "consumer " + durable + " had acknowledged stream " + stream + " up to sequence "
                                + floor.getValue() + ", past its last sequence " + lastSequence + " now: those "
                                + "messages were applied before they were lost; new messages reuse their sequences",
                        now));
                floor.setValue(lastSequence);
            }
        }
        return losses;
    }

    private Marks marks(String stream) {
        return streams.computeIfAbsent(stream, s -> new Marks());
    }

    /** One stream's marks, guarded by itself. */
    private static final class Marks {

        private final long[] sequences = new long[PUBLISHED_KEPT];

        private final String[] subjects = new String[PUBLISHED_KEPT];

        /** When each PubAck came, epoch ms. */
        private final long[] arrivals = new long[PUBLISHED_KEPT];

        private int next;

        private long published;

        private long highest;

        /**
         * @return whether the sequence is below the highest one seen
         */
        synchronized boolean published(String subject, long sequence, long at) {
            sequences[next] = sequence;
            subjects[next] = subject;
            arrivals[next] = at;
            next = (next + 1) % PUBLISHED_KEPT;
            published++;
            boolean backwards = sequence < highest;
            highest = Math.max(highest, sequence);
            return backwards;
        }

        synchronized long highest() {
            return highest;
        }

        synchronized void raise(long sequence) {
            highest = Math.max(highest, sequence);
        }

        synchronized void lower(long sequence) {
            highest = sequence;
        }

        /**
         * The PubAcks remembered that {@code lost} says were lost (by sequence and
         * arrival), per subject, as losses; forgotten. A message acknowledged twice (a
         * publish sent again and answered as a duplicate) is counted once.
         * @param after the sequence after which every message is lost, for "at least"
         * when older PubAcks were forgotten
         */
        synchronized List<JetStreamLoss> lost(String stream, long after, Lost lost, Instant now) {
            Map<String, long[]> bySubject = new TreeMap<>();
            Set<Long> counted = new HashSet<>();
            long oldest = Long.MAX_VALUE;
            int kept = (int) Math.min(published, PUBLISHED_KEPT);
            for (int i = 0; i < kept; i++) {
                if (sequences[i] > 0) {
                    oldest = Math.min(oldest, sequences[i]);
                }
                if (sequences[i] > 0 && lost.test(sequences[i], arrivals[i])) {
                    long[] found = bySubject.computeIfAbsent(subjects[i],
                            s -> new long[] { 0, Long.MAX_VALUE, Long.MIN_VALUE });
                    if (counted.add(sequences[i])) {
                        found[0]++;
                    }
                    found[1] = Math.min(found[1], sequences[i]);
                    found[2] = Math.max(found[2], sequences[i]);
                    sequences[i] = 0;
                }
            }
            boolean atLeast = published > PUBLISHED_KEPT && oldest > after + 1;
            List<JetStreamLoss> losses = new ArrayList<>();
            bySubject.forEach((subject,
                    found) -> losses.add(new JetStreamLoss(JetStreamLoss.Kind.PUBLISHED_LOST, stream, subject, found[1],
                            found[2], found[0],
                            (atLeast ? "at least " : "") + found[0] + " messages this node published on " + subject
                                    + " and stream " + stream + " acknowledged are gone (sequences " + found[1] + "-"
                                    + found[2] + ")",
                            now)));
            return losses;
        }

    }

    /** Whether a remembered PubAck's message was lost. */
    @FunctionalInterface
    private interface Lost {

        /**
         * @param sequence its stream sequence
         * @param at when its PubAck came, epoch ms
         * @return whether it was lost
         */
        boolean test(long sequence, long at);

    }

}
