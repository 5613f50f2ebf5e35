package io.varpulis.delivery;

import io.varpulis.pipeline.KeyValueState;
import io.varpulis.pipeline.KeyValueState.StateFencedException;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Whether this worker still owns one deployed pipeline, checked where its effects happen
 * (SPEC section 9, fencing every effect; the Rust reference's lock-free guard on its emit
 * path): before each apply, before each output is published ({@link RouteEmitter}), and
 * by a sink right before its external write
 * ({@link io.varpulis.pipeline.ProcessingContext#requireOwnership()}).
 * <p>
 * The check is one volatile read while nothing happened. Once the pipeline is known
 * superseded (its state refused a write, its fence names a later placement) or stopped
 * (undeployed, moved, drained), every check fails. After a pause of the process
 * ({@link PauseDetector}) the next check first proves ownership against the server: it
 * reads the state's fence ({@link KeyValueState#verifyOwnership()}), so a worker resumed
 * after its pipeline moved stops before any effect, rather than learning it from its next
 * state write.
 * <p>
 * Server-side, a superseded owner is stopped by its state writes, which carry the
 * bucket's expected last message and are confirmed before the outputs of the same apply
 * are published ({@link RouteIngress}).
 */
public final class OwnershipFence {

    /**
     * A fence that never supersedes: for emitters outside any pipeline (injection,
     * tests).
     */
    public static final OwnershipFence NONE = new OwnershipFence("unfenced", 0, null, null);

    private final String unit;

    private final long epoch;

    private final KeyValueState state;

    private final PauseDetector pauses;

    private final AtomicBoolean reported = new AtomicBoolean();

    private final AtomicBoolean released = new AtomicBoolean();

    private volatile StateFencedException superseded;

    private volatile boolean stopped;

    private volatile long provenAt = System.nanoTime();

    /**
     * @param unit the pipeline or partition, {@code group/pipeline[/partition]}, for
     * messages
     * @param epoch its placement epoch on this worker
     * @param state its state, whose fence proves ownership after a pause ({@code null}:
     * never checked)
     * @param pauses the process's pause detector ({@code null}: pauses are not looked
     * for)
     */
    public OwnershipFence(String unit, long epoch, KeyValueState state, PauseDetector pauses) {
        this.unit = unit;
        this.epoch = epoch;
        this.state = state;
        this.pauses = pauses;
        if (pauses != null) {
            pauses.acquire();
        }
    }

    /**
     * Passes while this worker owns the pipeline.
     * @throws StateFencedException when a later placement owns it
     * @throws KeyValueState.StateException when it was stopped on this worker
     * @throws KeyValueState.StateUnavailableException when ownership must be proven after
     * a pause and the server did not answer
     */
    public void check() {
        StateFencedException lost = superseded;
        if (lost != null) {
            throw lost;
        }
        if (stopped) {
            throw new KeyValueState.StateException("pipeline " + unit + " was stopped on this worker", null);
        }
        if (unproven()) {
            prove();
        }
    }

    /**
     * @return {@code false} once superseded or stopped: what a heartbeat may report as
     * running here (a worker proves its pipelines after a pause before it reports them,
     * {@link PipelineHost#proveOwnership(java.time.Duration)})
     */
    public boolean trusted() {
        return superseded == null && !stopped;
    }

    /**
     * @return whether the process may have been paused since ownership was last proven
     * (the next check reads the state's fence first)
     */
    public boolean unproven() {
        return pauses != null && state != null && pauses.pausedSince(provenAt);
    }

    /**
     * Proves ownership now when a pause may have happened since it was last proven: for a
     * worker about to report or stop its pipelines after a pause.
     * @return the reason when the pipeline is superseded, else {@code null} (also when
     * the server did not answer)
     */
    public StateFencedException recheck() {
        try {
            check();
            return null;
        }
        catch (StateFencedException e) {
            return e;
        }
        catch (KeyValueState.StateException e) {
            return superseded;
        }
    }

    /**
     * Why a pipeline just undeployed here is a superseded copy, reading nothing from the
     * server: an undeploy that reaches a worker resumed from a pause may come before
     * anything else noticed the pause, and stops the pipeline at once rather than after a
     * read.
     * @param unproven whether it was unproven ({@link #unproven()}) when it was stopped
     * @return the reason it was superseded, one saying it was not proven after a pause
     * when {@code unproven}, else {@code null} (an ordinary undeploy)
     */
    public StateFencedException undeployed(boolean unproven) {
        StateFencedException lost = superseded;
        if (lost == null && unproven) {
            return new StateFencedException("pipeline " + unit + " (placement epoch " + epoch + ") was undeployed "
                    + "while this process, resumed from a pause, had not yet proven it still owned it", null);
        }
        return lost;
    }

    /**
     * Marks the pipeline superseded: every later check fails with {@code reason}.
     * @param reason who owns it now
     * @return {@code true} the first time only: the caller says so (ERROR) and counts it,
     * once per pipeline
     */
    public boolean supersede(StateFencedException reason) {
        if (superseded == null) {
            superseded = reason;
        }
        return reported.compareAndSet(false, true);
    }

    /**
     * Marks the pipeline stopped on this worker (undeployed, moved, drained): every later
     * check fails, and the pause detector is released (the first call only).
     */
    public void stop() {
        stopped = true;
        if (pauses != null && released.compareAndSet(false, true)) {
            pauses.release();
        }
    }

    /**
     * @return the placement epoch this worker runs the pipeline with
     */
    public long epoch() {
        return epoch;
    }

    private synchronized void prove() {
        if (superseded != null || !pauses.pausedSince(provenAt)) {
            return;
        }
        long started = System.nanoTime();
        try {
            state.verifyOwnership();
        }
        catch (StateFencedException e) {
            superseded = new StateFencedException("pipeline " + unit + " (placement epoch " + epoch + ") was "
                    + "superseded while this process was paused: " + e.getMessage(), e);
            throw superseded;
        }
        provenAt = started;
    }

}
