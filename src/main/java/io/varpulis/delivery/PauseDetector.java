package io.varpulis.delivery;

import io.varpulis.support.DaemonThreads;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Notices that this process was paused (SIGSTOP, a frozen VM, a long GC pause), so that a
 * pipeline checks it still owns its placement before its next effect (SPEC section 9;
 * STYLE, fencing: a process that may have been paused assumes it lost its lease until it
 * proves otherwise). A daemon thread ticks every {@link #TICK}; a tick that comes
 * {@link #PAUSE} or more after the previous one is a pause, and so is a tick that is
 * overdue now (the other threads of a resumed process may run before the ticker does).
 * The monotonic clock ({@link System#nanoTime()}) keeps running while a process is
 * stopped, so a pause shows however the host's wall clock moves.
 * <p>
 * One per process ({@link #shared()}): a stopped process stops all its threads alike. The
 * ticker runs only while some fence uses the detector ({@link #acquire()},
 * {@link #release()}), so a library whose pipelines all stopped (a service redeployed in
 * its container) leaves no thread behind.
 */
public final class PauseDetector {

    /** How often the ticker runs. */
    static final Duration TICK = Duration.ofMillis(100);

    /**
     * A gap this long is taken for a pause: ten ticks, so a loaded host's scheduling
     * delays rarely count, and far below any heartbeat-timeout, so every pause long
     * enough to get a pipeline moved is noticed. A false alarm only costs one read of
     * each pipeline's fence.
     */
    static final Duration PAUSE = Duration.ofSeconds(1);

    private static final PauseDetector SHARED = new PauseDetector();

    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

    private volatile long lastTick = System.nanoTime();

    private volatile long lastPauseSeenAt = lastTick - PAUSE.toNanos();

    /**
     * How many fences use the detector; the ticker runs while there is one. Guarded by
     * {@code this}.
     */
    private int users;

    private Thread ticker;

    private PauseDetector() {
    }

    /**
     * @return the process's detector, ticking while a fence uses it
     */
    public static PauseDetector shared() {
        return SHARED;
    }

    /** One more fence uses the detector: the ticker starts with the first one. */
    public synchronized void acquire() {
        if (users++ == 0) {
            // A fence only compares with readings taken after it was made: what happened
            // while none ticked is moot.
            lastTick = System.nanoTime();
            ticker = DaemonThreads.named("varpulis-pause-detector").newThread(this::tick);
            ticker.start();
        }
    }

    /**
     * A fence given to {@link #acquire()} no longer uses the detector: the ticker stops
     * with the last one.
     */
    public synchronized void release() {
        if (users > 0 && --users == 0) {
            ticker.interrupt();
            ticker = null;
        }
    }

    /**
     * @param since a {@link System#nanoTime()} reading (when ownership was last proven)
     * @return whether the process may have been paused after {@code since}: a pause was
     * seen after it, or the ticker is overdue now
     */
    public boolean pausedSince(long since) {
        return System.nanoTime() - lastTick >= PAUSE.toNanos() || lastPauseSeenAt - since > 0;
    }

    /**
     * @param listener run on the ticker's thread when it sees a pause; must be quick
     * (hand work to another thread)
     */
    public void onPause(Runnable listener) {
        listeners.add(listener);
    }

    /**
     * @param listener a listener given to {@link #onPause}, no longer run
     */
    public void removeListener(Runnable listener) {
        listeners.remove(listener);
    }

    private void tick() {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                Thread.sleep(TICK.toMillis());
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            long now = System.nanoTime();
            if (now - lastTick >= PAUSE.toNanos()) {
                // Seen before the tick moves on: a reader never finds the tick fresh and
                // the pause unrecorded.
                lastPauseSeenAt = now;
                listeners.forEach(Runnable::run);
            }
            lastTick = now;
        }
    }

}
