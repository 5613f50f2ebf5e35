package io.varpulis.pipeline;

import io.varpulis.pipeline.KeyValueState.StateException;
import io.varpulis.pipeline.KeyValueState.StateFencedException;
import io.varpulis.pipeline.KeyValueState.StateUnavailableException;
import io.varpulis.pipeline.StateWrite.Send;
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
 * nothing again that a look-up did not find missing. Its bucket's leader, behind it or
 * gone, is {@link StateLeader}'s to handle; the writer ends with what that gives.
 */
final class StateWriter {

    private static final Logger log = LoggerFactory.getLogger(StateWriter.class);

    private static final Duration FIRST_LOOK_UP = Duration.ofMillis(50);

    private static final Duration MAX_LOOK_UP = Duration.ofSeconds(2);

    private final String bucket;

    private final WriteChain chain;

    private final StateCache cache;

    private final ClusterTransport transport;

    private final StateLeader leader;

    private final SerialExecutor serial;

    private final TaskScheduler timer;

    private final Runnable resent;

    private final AtomicBoolean lookUpScheduled = new AtomicBoolean();

    private final AtomicBoolean watchScheduled = new AtomicBoolean();

    private final long lostAfterMillis;

    private final StateWait wait;

    // Guarded by this.
    private BackOffExecution waits = Backoffs.start(FIRST_LOOK_UP, MAX_LOOK_UP);

    private volatile StateException ended;

    /**
     * @param chain the write chain
     * @param cache the state's cache (confirmed keys, cleared when writes are dropped)
     * @param transport publishes the writes
     * @param leader looks up what the bucket's leader holds, steps it down when behind
     * @param threads the pool this state's work runs on, one task at a time, and the
     * timer of its look-ups
     * @param resent counts a write sent again
     * @param warnAfter how long writes may go unconfirmed before the writer says at WARN
     * what it waits for ({@link StateWait#WARN_AFTER} in the product)
     */
    StateWriter(WriteChain chain, StateCache cache, ClusterTransport transport, StateLeader leader,
            JetStreamKeyValueState.Threads threads, Runnable resent, Duration warnAfter) {
        this.wait = new StateWait(warnAfter);
        this.lostAfterMillis = chain.lostAfterMillis();
        this.bucket = chain.bucket();
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
     * @return whether this call ended it
     */
    boolean end(StateException why) {
        synchronized (this) {
            if (ended != null) {
                return false;
            }
            ended = why;
        }
        cache.clear();
        fail(chain.end(), why);
        return true;
    }

    /**
     * Runs a read of the bucket: a bucket it finds deleted ends the state, and that loss
     * is recorded once, whichever read found it first ({@link StateRollback#gone}).
     * @param read the read
     * @param <T> what it reads
     * @return what it read
     * @throws KeyValueState.StateException as the read
     */
    <T> T read(Supplier<T> read) {
        try {
            return read.get();
        }
        catch (KeyValueState.StateLostException e) {
            bucketGone(e);
            throw e;
        }
    }

    private void bucketGone(KeyValueState.StateLostException gone) {
        long confirmed = chain.confirmedSequence();
        if (end(gone)) {
            leader.gone(confirmed);
        }
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
        List<Send> sends = chain.toSend();
        sends.stream().filter(send -> send.copy() > 1).forEach(send -> resent.run());
        if (chain.batched()) {
            if (!sends.isEmpty()) {
                // The batch's last write answers for it.
                publish(sends.get(sends.size() - 1),
                        () -> transport.publishAtomically(sends.stream().map(Send::message).toList()));
            }
        }
        else {
            sends.forEach(send -> publish(send, () -> transport.publish(send.message())));
        }
        watch();
    }

    private void publish(Send answering, Supplier<CompletableFuture<PublishReceipt>> publish) {
        CompletableFuture<PublishReceipt> published;
        try {
            published = publish.get();
        }
        catch (RuntimeException e) {
            published = CompletableFuture.failedFuture(e);
        }
        published.whenComplete((receipt, error) -> answered(answering, receipt, error));
    }

    /**
     * While writes are not confirmed, checks every {@code lostAfter} whether the chain
     * stalled (a leader that stepped down drops what it was storing and never answers),
     * and looks the leader up then.
     */
    private void watch() {
        if (ended == null && chain.unconfirmed() > 0 && watchScheduled.compareAndSet(false, true)) {
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

    private void settle(ChainRepair repair) {
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
            held = leader.held();
        }
        catch (KeyValueState.StateLostException e) {
            bucketGone(e);
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
        KeyValueState.StateLostException lost = leader.behind(held.lastSequence(), chain.confirmedSequence());
        if (lost != null) {
            end(lost);
            return;
        }
        ChainRepair repair = chain.lookedUp(held);
        watch();
        if (repair.action() == ChainRepair.Action.SEND && repair.why().equals(WriteChain.REPAIRED)) {
            log.info("state bucket {}: write chain repaired at sequence {} ({} found stored, {} to send again)", bucket,
                    held.lastSequence(), repair.confirmed().size(), chain.unconfirmed());
        }
        settle(repair);
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
