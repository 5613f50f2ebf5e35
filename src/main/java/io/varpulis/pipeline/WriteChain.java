package io.varpulis.pipeline;

import io.varpulis.pipeline.StateReads.Held;
import io.varpulis.pipeline.StateWrite.Send;
import io.varpulis.pipeline.StateWrite.Status;
import io.varpulis.transport.PublishException;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The write chain of one {@link JetStreamKeyValueState}: its writes in order, numbered,
 * each sent expecting its predecessor to be the bucket's last message
 * ({@code Nats-Expected-Last-Msg-Id}; the first one after a repair expects the sequence
 * the leader was found holding instead), so that none lands after a message this writer
 * did not write, and at most one copy of a write ever lands. No network: the
 * {@link StateWriter} sends what {@link #toSend()} gives and reports answers back.
 * <p>
 * A bucket this product created on nats-server 2.12 or later takes atomic batches
 * ({@link Chaining#ATOMIC_BATCH}): one batch at a time is on the wire, whole applies, its
 * first write expecting the last confirmed sequence, so that a placement that fences this
 * writer, or a crash, never leaves half an apply stored. An older bucket on 2.14 or
 * later, where a false expected message id stops the stream (RELIABILITY.md), gets one
 * write at a time expecting the last confirmed sequence.
 * <p>
 * The rules of issue 41 (SPEC section 20):
 * <ul>
 * <li>At most {@link #WINDOW} writes are on the wire at once; the others wait in order,
 * unsent, so a slow leader never faces a backlog that times out and is sent again.</li>
 * <li>A PubAck late while the leader stores is no failure: the write waits for it.</li>
 * <li>After a refusal, or while writes are on the wire and the leader stored none of them
 * for {@code lostAfter} (a leader that stepped down drops what it was storing and never
 * answers), sending stops and the leader is asked what it holds (writes land in order:
 * the last one stored says which are); only what it lacks is sent again.</li>
 * <li>A copy sent again carries a message id of its own ({@link StateWrite#messageId()}):
 * a leader that stepped down may leave the first copy's id "in process" (10158) without
 * ever storing it. The expectations alone keep a write from landing twice: each copy
 * expects what the bucket held when it was sent, and whichever lands first makes the
 * other's expectation false (in a batch only the first write expects; the batch lands
 * whole or not at all).</li>
 * <li>Anything stored after this writer's last stored write that is not this writer's
 * means another writer owns the bucket: {@link ChainRepair.Action#FENCED}.</li>
 * </ul>
 * Thread-safe: the lock covers in-memory work only.
 */
final class WriteChain {

    /**
     * Writes on the wire at once, at most: enough to keep a fast leader busy (64 per
     * round trip of a few ms), few enough that a leader storing ten a second (a 100 ms
     * fsync) answers each within the publish timeout, and that a leader change costs at
     * most this many writes sent again.
     */
    static final int WINDOW = 64;

    /** The {@link ChainRepair#why()} of a look-up after which writes are sent again. */
    static final String REPAIRED = "repaired";

    private final String writer;

    private final String bucket;

    private final long lostAfterNanos;

    private final Chaining chaining;

    private final ArrayDeque<StateWrite> writes = new ArrayDeque<>();

    private long numbered;

    private long storedSequence;

    private String storedId;

    private Long anchor;

    private boolean repairing;

    /** After a repair: only the first write is on the wire until it is stored. */
    private boolean probing;

    private long lastProgress = System.nanoTime();

    private StateWrite lastWritten;

    /**
     * @param writer the writer's identity, the prefix of its message ids
     * @param bucket the bucket
     * @param fenceSequence the sequence its fence ({@code {writer}:0}) landed on
     * @param lostAfterNanos how long writes on the wire wait while the leader stores none
     * of them before the leader is looked up and what it lacks is sent again
     * @param chaining how its writes say what they expect
     */
    WriteChain(String writer, String bucket, long fenceSequence, long lostAfterNanos, Chaining chaining) {
        this.writer = writer;
        this.bucket = bucket;
        this.storedSequence = fenceSequence;
        this.storedId = writer + ":0";
        this.lostAfterNanos = lostAfterNanos;
        this.chaining = chaining;
    }

    /** Whether {@link #toSend()} gives one batch to publish atomically. */
    boolean batched() {
        return chaining != Chaining.MESSAGE_ID;
    }

    /** The bucket. */
    String bucket() {
        return bucket;
    }

    /** {@code lostAfter}, ms, at least 1 (a watch is never scheduled at once). */
    long lostAfterMillis() {
        return Math.max(1, lostAfterNanos / 1_000_000);
    }

    /**
     * Appends writes, in order.
     * @param batch key to value ({@code null}: delete)
     * @return the writes, in order
     */
    synchronized List<StateWrite> add(Map<String, byte[]> batch) {
        List<StateWrite> added = new ArrayList<>(batch.size());
        if (writes.isEmpty()) {
            lastProgress = System.nanoTime(); // a wait starts with something to wait for
        }
        batch.forEach((key, value) -> added.add(new StateWrite(writer, ++numbered, key, value)));
        writes.addAll(added);
        if (!added.isEmpty()) {
            lastWritten = added.get(added.size() - 1);
            lastWritten.endsApply = true;
        }
        return added;
    }

    /**
     * @return the future of the newest write made, or {@code null} when none was
     */
    synchronized CompletableFuture<Void> lastWritten() {
        return lastWritten == null ? null : lastWritten.confirmed;
    }

    /**
     * Takes the writes to put on the wire now, in chain order, each marked sent: none
     * while the chain is being repaired; at most {@link #WINDOW} on the wire, or one
     * batch ({@link #batched()}: whole applies, fewer than {@link #WINDOW} writes before
     * its last apply).
     * @return the sends, in order
     */
    synchronized List<Send> toSend() {
        if (batched()) {
            return batchToSend();
        }
        List<Send> sends = new ArrayList<>();
        int onWire = 0;
        StateWrite previous = null;
        for (StateWrite write : writes) {
            if (repairing || onWire >= WINDOW || probing && onWire > 0) {
                break;
            }
            onWire++;
            if (write.status == Status.QUEUED) {
                String expectedId = anchor != null ? null : previous == null ? storedId : previous.messageId();
                sends.add(write.send(bucket, anchor, expectedId));
                anchor = null;
            }
            previous = write;
        }
        return sends;
    }

    /**
     * One batch, when none is on the wire: whole applies while it holds fewer than
     * {@link #WINDOW} writes ({@link Chaining#ATOMIC_BATCH}), or one write
     * ({@link Chaining#SEQUENCE}); its first write expects the last confirmed sequence.
     */
    private List<Send> batchToSend() {
        List<Send> sends = new ArrayList<>();
        if (repairing || writes.isEmpty() || writes.peekFirst().status != Status.QUEUED) {
            return sends;
        }
        StateWrite previous = null;
        for (StateWrite write : writes) {
            if (previous != null && (chaining == Chaining.SEQUENCE || previous.endsApply && sends.size() >= WINDOW)) {
                break;
            }
            sends.add(write.send(bucket, previous == null ? Long.valueOf(storedSequence) : null, null));
            previous = write;
        }
        return sends;
    }

    /**
     * A copy of a write was stored: it and every write before it (which it expected) are
     * confirmed.
     * @param write the write
     * @param messageId the stored copy's message id
     * @param sequence the sequence it landed on
     * @return the writes confirmed now, and {@link ChainRepair.Action#SEND}
     */
    synchronized ChainRepair stored(StateWrite write, String messageId, long sequence) {
        List<StateWrite> confirmed = new ArrayList<>();
        if (inChain(write)) {
            while (!writes.isEmpty() && writes.peekFirst().number <= write.number) {
                confirm(writes.pollFirst(), confirmed);
            }
            storedSequence = Math.max(storedSequence, sequence);
            storedId = messageId;
        }
        return ChainRepair.of(confirmed, ChainRepair.Action.SEND);
    }

    /**
     * A copy of a write was not stored, or not in time.
     * @param write the write
     * @param copy which copy (an answer to an earlier copy than the last one sent is
     * ignored)
     * @param error the publish's failure
     * @return {@link ChainRepair.Action#WAIT} after a refusal: the leader is looked up to
     * repair the chain; else {@link ChainRepair.Action#SEND}
     */
    synchronized ChainRepair failed(StateWrite write, int copy, Throwable error) {
        if (!(write.status == Status.SENT || write.status == Status.UNANSWERED) || copy != write.copies
                || !inChain(write)) {
            return ChainRepair.of(List.of(), ChainRepair.Action.SEND);
        }
        PublishException publish = PublishException.find(error).orElse(null);
        write.failure = error;
        if (publish == null || publish.isUnavailable()) {
            // It may still land: the late PubAck, or a look-up once stalled, tells.
            write.status = Status.UNANSWERED;
            return ChainRepair.of(List.of(), ChainRepair.Action.SEND);
        }
        repairing = true;
        // A batch is refused as a whole, and its first write answers for it.
        for (StateWrite refused : batched() ? List.copyOf(writes) : List.of(write)) {
            if (refused.status == Status.SENT || refused.status == Status.UNANSWERED) {
                refused.status = Status.REFUSED;
                refused.failure = error;
            }
        }
        StateWrite answering = batched() ? writes.peekFirst() : write;
        answering.refusals += Chaining.brokenBy(publish.apiErrorCode()) ? 0 : 1;
        return ChainRepair.of(List.of(), ChainRepair.Action.WAIT);
    }

    /**
     * What the leader was found holding: confirms the writes stored, then decides what to
     * send again, or that another writer owns the bucket.
     * @param held the leader's last message
     * @return the writes confirmed now and what to do next
     */
    synchronized ChainRepair lookedUp(Held held) {
        List<StateWrite> confirmed = new ArrayList<>();
        if (held.lastSequence() > storedSequence) {
            long storedUpTo;
            if (held.gone()) {
                if (!writer.equals(held.fenceWriter())) {
                    return fenced(confirmed, "sequence " + held.lastSequence() + " is gone and the fence names writer "
                            + held.fenceWriter());
                }
                // The fence is this writer's, so nobody else wrote: what landed is ours.
                storedUpTo = (writes.isEmpty() ? numbered + 1 : writes.peekFirst().number)
                        + (held.lastSequence() - storedSequence) - 1;
            }
            else {
                storedUpTo = StateWrite.numberOf(writer, held.lastMessageId());
                if (storedUpTo < 0) {
                    return fenced(confirmed, "sequence " + held.lastSequence()
                            + " was written by another writer (message id " + held.lastMessageId() + ")");
                }
                long head = writes.isEmpty() ? numbered + 1 : writes.peekFirst().number;
                if (storedUpTo < head) {
                    // Past the last confirmed write, yet not in the chain: a dropped
                    // write's late copy, which this writer failed.
                    return fenced(confirmed, "sequence " + held.lastSequence() + " holds write " + storedUpTo
                            + ", which this writer had dropped");
                }
            }
            if (storedUpTo > numbered) {
                return fenced(confirmed,
                        "the bucket holds more writes after sequence " + storedSequence + " than this writer made");
            }
            while (!writes.isEmpty() && writes.peekFirst().number <= storedUpTo) {
                confirm(writes.pollFirst(), confirmed);
            }
            storedSequence = held.lastSequence();
            storedId = held.gone() ? storedId : held.lastMessageId();
        }
        return next(confirmed);
    }

    /** After a look-up: what the first write not stored asks for. */
    private ChainRepair next(List<StateWrite> confirmed) {
        StateWrite first = writes.peekFirst();
        if (first == null) {
            repairing = false;
            return ChainRepair.of(confirmed, ChainRepair.Action.SEND);
        }
        // A refusal means the chain broke: what was sent before it and is not stored was
        // lost (a leader change drops what it was storing). Without one, writes on the
        // wire may still land while the leader stores.
        boolean broken = writes.stream().anyMatch(w -> w.status == Status.REFUSED);
        if (!broken && !stalled()) {
            repairing = false;
            return ChainRepair.of(confirmed, ChainRepair.Action.SEND);
        }
        if (first.status == Status.REFUSED && first.refusals >= 2) {
            List<StateWrite> dropped = new ArrayList<>(writes);
            writes.clear();
            repairing = false;
            probing = false;
            return new ChainRepair(confirmed, ChainRepair.Action.DROPPED,
                    first.failure == null ? "refused" : String.valueOf(first.failure.getMessage()), dropped);
        }
        // Sent again, the first alone (anchored), the others once it is stored: a leader
        // checks message-id expectations when it applies a write, so writes chained on a
        // refused first one would each cost it a log write (issue 41: 602 repairs a run).
        writes.forEach(w -> w.status = Status.QUEUED);
        anchor = storedSequence;
        repairing = false;
        probing = true;
        return new ChainRepair(confirmed, ChainRepair.Action.SEND, REPAIRED, List.of());
    }

    /**
     * @return whether the oldest write on the wire has waited {@code lostAfter} while the
     * leader stored none of this writer's writes: time to look the leader up
     */
    synchronized boolean stalled() {
        StateWrite first = writes.peekFirst();
        return first != null && first.status != Status.QUEUED
                && System.nanoTime() - Math.max(lastProgress, first.sentAt) >= lostAfterNanos;
    }

    /**
     * @return the sequence of this writer's last confirmed write (or of its fence)
     */
    synchronized long confirmedSequence() {
        return storedSequence;
    }

    /**
     * @return how long the oldest write not confirmed has waited while none was
     * confirmed, ns (0 when every write is)
     */
    synchronized long waitingNanos() {
        return writes.isEmpty() ? 0 : System.nanoTime() - lastProgress;
    }

    /**
     * @return for messages, the oldest write not confirmed: key, copies sent; or ""
     */
    synchronized String oldest() {
        StateWrite first = writes.peekFirst();
        return first == null ? "" : "key " + first.key + ", sent " + first.copies + " time(s)";
    }

    /**
     * Ends the chain (fenced, closed): every write not confirmed is handed back to fail.
     * @return the writes dropped
     */
    synchronized List<StateWrite> end() {
        List<StateWrite> dropped = new ArrayList<>(writes);
        writes.clear();
        repairing = true;
        return dropped;
    }

    /**
     * @return the writes not confirmed yet
     */
    synchronized int unconfirmed() {
        return writes.size();
    }

    private ChainRepair fenced(List<StateWrite> confirmed, String why) {
        return new ChainRepair(confirmed, ChainRepair.Action.FENCED,
                why + "; another writer took it over, and this writer (" + writer + ") no longer owns it and stops",
                List.of());
    }

    private void confirm(StateWrite write, List<StateWrite> confirmed) {
        write.status = Status.STORED;
        probing = false;
        lastProgress = System.nanoTime();
        confirmed.add(write);
    }

    /** Whether a write is still in the chain: not confirmed, not dropped. */
    private boolean inChain(StateWrite write) {
        return write.status != Status.STORED && !writes.isEmpty() && write.number >= writes.peekFirst().number;
    }

}
