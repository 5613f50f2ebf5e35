package io.varpulis.pipeline;

import io.varpulis.pipeline.KeyValueState.StateException;
import io.varpulis.pipeline.KeyValueState.StateFencedException;
import io.varpulis.pipeline.KeyValueState.StateUnavailableException;
import io.varpulis.pipeline.WriteChain.Repair;
import io.varpulis.pipeline.WriteChain.Send;
import io.varpulis.support.Backoffs;
import io.varpulis.support.SerialExecutor;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.PublishException;
import io.varpulis.transport.PublishReceipt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.util.backoff.BackOffExecution;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Puts one state's {@link WriteChain} on the wire and settles it: sends what the chain
 * gives, hands each PubAck (or late PubAck, or failure) back to it, looks the bucket's
 * leader up when the chain asks, and completes the writes' futures. Everything it does
 * for one state runs on that state's own {@link SerialExecutor} over the worker's shared
 * pool: a state waiting for a slot in the window of outstanding PubAcks, or for its
 * leader, holds up no other state, and the code that runs when a write is confirmed (the
 * route ingress publishing the apply's outputs) never runs on a client thread. No lock is
 * held across a network wait: the chain's lock covers its in-memory changes only.
 * <p>
 * What it says: one INFO line per repaired chain (what the leader held, how many writes
 * go again); each write sent again is counted ({@code varpulis.state.write.retries}). A
 * writer whose writes go unconfirmed past a bound says at WARN what it waits for
 * ({@link StateWait}: the answers instead of PubAcks, such as "in process", and what the
 * leader holds), once, and at INFO when they are confirmed again; meanwhile it sends
 * nothing again that a look-up did not find missing. A leader found holding less than
 * this writer's confirmed writes for {@link #BEHIND_FOR} (it lost, or has not applied,
 * what its peers stored: issue 41's slow-disk runs met a new leader on a slow disk
 * holding only the fence for minutes, its bucket's peers holding 139 writes more) is
 * asked to step down, at most every {@link #BEHIND_FOR}, with a WARN; after
 * {@link #MAX_BEHIND_STEP_DOWNS} step-downs in a row that did not help, the servers lost
 * confirmed writes: the state ends ({@link KeyValueState.StateLostException}) and its
 * pipeline stops loudly rather than waiting for ever.
 */
final class StateWriter {

    private static final Logger log = LoggerFactory.getLogger(StateWriter.class);

    private static final Duration FIRST_LOOK_UP = Duration.ofMillis(50);

    private static final Duration MAX_LOOK_UP = Duration.ofSeconds(2);

    /**
     * How long a leader may hold less than this writer's confirmed writes before it is
     * asked to step down: a leader just elected applies what it holds within milliseconds
     * on a healthy disk.
     */
    static final Duration BEHIND_FOR = Duration.ofSeconds(5);

    /** Step-downs of leaders behind the confirmed writes, in a row, before giving up. */
    static final int MAX_BEHIND_STEP_DOWNS = 3;

    /**
     * The writer's bounds.
     *
     * @param warnAfter how long writes may go unconfirmed before the writer says at WARN
     * what it waits for ({@link StateWait#WARN_AFTER})
     * @param behindFor how long a leader may hold less than the confirmed writes before
     * it is asked to step down, and how long between two such step-downs
     * ({@link #BEHIND_FOR})
     */
    record Bounds(Duration warnAfter, Duration behindFor) {

        /** The product's. */
        static final Bounds DEFAULT = new Bounds(StateWait.WARN_AFTER, BEHIND_FOR);

    }

    private final String bucket;

    private final WriteChain chain;

    private final StateCache cache;

    private final ClusterTransport transport;

    private final Supplier<StateReads.Held> leader;

    private final SerialExecutor serial;

    private final TaskScheduler timer;

    private final Runnable resent;

    private final StateRollback rollback;

    private final Supplier<String> stepDown;

    private final long behindForNanos;

    // Guarded by the serial executor (look-ups run there only).
    private long behindSince;

    private long lastStepDown;

    private int behindStepDowns;

    private final AtomicBoolean lookUpScheduled = new AtomicBoolean();

    private final AtomicBoolean watchScheduled = new AtomicBoolean();

    private final long lostAfterMillis;

    private final StateWait wait;

    // Guarded by this.
    private BackOffExecution waits = Backoffs.start(FIRST_LOOK_UP, MAX_LOOK_UP);

    private volatile StateException ended;

    /**
     * @param bucket the bucket, for messages
     * @param chain the write chain
     * @param cache the state's cache (confirmed keys, cleared when writes are dropped)
     * @param transport publishes the writes
     * @param leader looks up what the bucket's stream leader holds
     * @param threads the pool this state's work runs on, one task at a time, and the
     * timer of its look-ups
     * @param resent counts a write sent again
     * @param rollback records the bucket gone, or its leaders behind this writer's
     * confirmed writes for good, as a loss
     * @param bounds when it warns, when it steps a leader behind it down
     * ({@link Bounds#DEFAULT})
     * @param stepDown asks the bucket's stream leader to step down, answering what the
     * server said
     */
    StateWriter(String bucket, WriteChain chain, StateCache cache, ClusterTransport transport,
            Supplier<StateReads.Held> leader, JetStreamKeyValueState.Threads threads, Runnable resent,
            StateRollback rollback, Bounds bounds, Supplier<String> stepDown) {
        this.rollback = rollback;
        this.stepDown = stepDown;
        this.behindForNanos = bounds.behindFor().toNanos();
        this.wait = new StateWait(bounds.warnAfter());
        this.lostAfterMillis = chain.lostAfterMillis();
        this.bucket = bucket;
        this.chain = chain;
        this.cache = cache;
        this.transport = transport;
        this.leader = leader;
        this.serial = new SerialExecutor(threads.pool());
        this.timer = threads.timer();
        this.resent = resent;
    }

    /**
     * Adds writes to the chain and sends them together (the writes of one apply).
     * @param batch key to value ({@code null}: delete), in order
     * @throws StateException when the state was fenced or closed
     */
    void write(Map<String, byte[]> batch) {
        requireOpen();
        chain.add(batch);
        serial.execute(this::send);
    }

    /**
     * @return completes when every write made so far is stored; exceptionally when one
     * was dropped (fenced, closed, refused by the bucket)
     */
    CompletableFuture<Void> flush() {
        StateException end = ended;
        if (end != null) {
            return CompletableFuture.failedFuture(end);
        }
        CompletableFuture<Void> last = chain.lastWritten();
        return last == null ? CompletableFuture.completedFuture(null) : last.copy();
    }

    /**
     * Ends the state: every write not confirmed fails with {@code why}, and later use
     * throws it. The first end wins.
     * @param why fenced (another writer, the bucket gone) or closed
     */
    void end(StateException why) {
        synchronized (this) {
            if (ended != null) {
                return;
            }
            ended = why;
        }
        cache.clear();
        fail(chain.end(), why);
    }

    /**
     * @throws StateException why the state ended, when it did
     */
    void requireOpen() {
        StateException end = ended;
        if (end != null) {
            throw end;
        }
    }

    private void send() {
        if (ended != null) {
            return;
        }
        for (Send send : chain.toSend()) {
            if (send.copy() > 1) {
                resent.run();
            }
            CompletableFuture<PublishReceipt> published;
            try {
                published = transport.publish(send.message());
            }
            catch (RuntimeException e) {
                published = CompletableFuture.failedFuture(e);
            }
            published.whenComplete((receipt, error) -> answered(send, receipt, error));
        }
        watch();
    }

    /**
     * While writes are on the wire, checks every {@code lostAfter} whether the chain
     * stalled (a leader that stepped down drops what it was storing and never answers),
     * and looks the leader up then.
     */
    private void watch() {
        if (ended == null && chain.onWire() && watchScheduled.compareAndSet(false, true)) {
            timer.schedule(() -> serial.execute(() -> {
                watchScheduled.set(false);
                sayIfWaiting();
                if (chain.stalled()) {
                    lookUp();
                }
                else {
                    watch();
                }
            }), Instant.now().plusMillis(lostAfterMillis));
        }
    }

    /** A PubAck, a refusal or a timeout, on whichever thread completed it. */
    private void answered(Send send, PublishReceipt receipt, Throwable error) {
        StateWrite write = send.write();
        String id = send.message().messageId();
        if (receipt != null) {
            settle(chain.stored(write, id, receipt.sequence()));
            return;
        }
        wait.answered(error);
        settle(chain.failed(write, send.copy(), error));
        PublishException.find(error)
            .filter(PublishException::lateMayCome)
            .ifPresent(timedOut -> timedOut.late()
                .whenComplete((late, lateError) -> settle(late != null ? chain.stored(write, id, late.sequence())
                        : chain.failed(write, send.copy(), lateError))));
    }

    private void settle(Repair repair) {
        if (!repair.confirmed().isEmpty()) {
            // The leader stores again: the next repair's look-ups start over at 50 ms;
            // until then each waits longer (a refused first write may mean the leader is
            // still applying writes it accepted before).
            synchronized (this) {
                waits = Backoffs.start(FIRST_LOOK_UP, MAX_LOOK_UP);
            }
            wait.moved()
                .ifPresent(waited -> log.info("state bucket {}: writes confirmed again after {} s of waiting", bucket,
                        String.format(Locale.ROOT, "%.1f", waited / 1e9)));
            List<StateWrite> confirmed = repair.confirmed();
            serial.execute(() -> confirmed.forEach(write -> {
                cache.confirmed(write.key);
                write.confirmed.complete(null);
            }));
        }
        switch (repair.action()) {
            case SEND -> serial.execute(this::send);
            case WAIT -> lookUpLater();
            case FENCED -> end(new StateFencedException("state bucket " + bucket + ": " + repair.why(), null));
            case DROPPED -> {
                cache.clear();
                fail(repair.dropped(), new StateException(
                        "bucket " + bucket + " refused the write of key " + repair.dropped().get(0).key + ": "
                                + repair.why() + "; it and the writes after it are applied again from the bucket",
                        repair.dropped().get(0).failure));
                serial.execute(this::send);
            }
        }
    }

    private void lookUpLater() {
        if (ended == null && lookUpScheduled.compareAndSet(false, true)) {
            long wait;
            synchronized (this) {
                wait = waits.nextBackOff();
            }
            timer.schedule(() -> serial.execute(this::lookUp), Instant.now().plusMillis(wait));
        }
    }

    /** Asks the leader what it holds, on this state's serial executor. */
    private void lookUp() {
        lookUpScheduled.set(false);
        if (ended != null) {
            return;
        }
        StateReads.Held held;
        try {
            held = leader.get();
        }
        catch (KeyValueState.StateLostException e) {
            end(new KeyValueState.StateLostException(
                    "state bucket " + bucket + " " + rollback.gone(bucket, chain.confirmedSequence()), e));
            return;
        }
        catch (StateFencedException e) {
            end(e);
            return;
        }
        catch (StateUnavailableException e) {
            log.debug("state bucket {}: cannot look its leader up yet ({})", bucket, e.toString());
            wait.lookedUp("none answered the last look-up (" + e.getMessage() + ")");
            sayIfWaiting();
            lookUpLater();
            return;
        }
        catch (StateException e) {
            end(new KeyValueState.StateLostException("state bucket " + bucket + " cannot be read: " + e.getMessage(),
                    e));
            return;
        }
        wait.lookedUp("it holds sequence " + held.lastSequence()
                + (held.gone() ? " (the message is gone)" : ", message id " + held.lastMessageId()));
        sayIfWaiting();
        if (behind(held.lastSequence())) {
            return;
        }
        Repair repair = chain.lookedUp(held);
        watch();
        if (repair.action() == Repair.Action.SEND && repair.why().equals(WriteChain.REPAIRED)) {
            log.info("state bucket {}: write chain repaired at sequence {} ({} found stored, {} to send again)", bucket,
                    held.lastSequence(), repair.confirmed().size(), chain.unconfirmed());
        }
        settle(repair);
    }

    /**
     * Steps a leader holding less than this writer's confirmed writes down, or ends the
     * state once step-downs did not help.
     * @return whether the state ended
     */
    private boolean behind(long leaderSequence) {
        long confirmed = chain.confirmedSequence();
        long now = System.nanoTime();
        if (leaderSequence >= confirmed) {
            behindSince = 0;
            behindStepDowns = 0;
            return false;
        }
        behindSince = behindSince == 0 ? now : behindSince;
        if (now - behindSince < behindForNanos || lastStepDown != 0 && now - lastStepDown < behindForNanos) {
            return false;
        }
        if (behindStepDowns >= MAX_BEHIND_STEP_DOWNS) {
            rollback.wentBack(bucket, leaderSequence, confirmed);
            end(new KeyValueState.StateLostException("state bucket " + bucket + ": its leaders hold sequence "
                    + leaderSequence + ", behind sequence " + confirmed + " at which this writer's writes were "
                    + "confirmed, after " + behindStepDowns + " leader step-downs: the servers lost confirmed writes",
                    null));
            return true;
        }
        behindStepDowns++;
        lastStepDown = now;
        log.warn("state bucket {}: its leader holds sequence {}, behind sequence {} at which this writer's writes "
                + "were confirmed, for {} s (it lost, or has not applied, what its peers stored); asked it to step "
                + "down ({} of {}): {}", bucket, leaderSequence, confirmed,
                String.format(Locale.ROOT, "%.1f", (now - behindSince) / 1e9), behindStepDowns, MAX_BEHIND_STEP_DOWNS,
                stepDown.get());
        return false;
    }

    /** Says at WARN, once per wait, what writes unconfirmed past the bound wait for. */
    private void sayIfWaiting() {
        long waiting = chain.waitingNanos();
        wait.due(waiting)
            .ifPresent(what -> log.warn(
                    "state bucket {}: {} write(s) not confirmed for {} s (the oldest: {}); waiting for its leader to "
                            + "store them, sending none again until a look-up finds the leader lacking it: {}",
                    bucket, chain.unconfirmed(), String.format(Locale.ROOT, "%.1f", waiting / 1e9), chain.oldest(),
                    what));
    }

    private void fail(List<StateWrite> writes, StateException why) {
        if (!writes.isEmpty()) {
            serial.execute(() -> writes.forEach(write -> write.confirmed.completeExceptionally(why)));
        }
    }

}
