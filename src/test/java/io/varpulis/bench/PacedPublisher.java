package io.varpulis.bench;

import java.util.concurrent.locks.LockSupport;

/**
 * Publishes at a fixed rate: event i is due at {@code start + i / rate}. The latency of
 * an event is measured from its due time, not from when the publisher got to it, so a
 * publisher held up by a full window or a pause shows up in the figures instead of hiding
 * (no coordinated omission).
 */
final class PacedPublisher {

    /** Sleeping is precise to about 60 us on Linux; the rest is spun. */
    private static final long SPIN_NANOS = 200_000;

    private PacedPublisher() {
    }

    /**
     * @param rate events per second
     * @param count how many
     * @param publish called with the event's index and its due time
     * ({@link System#nanoTime()})
     */
    static void run(int rate, int count, DuePublish publish) {
        long period = 1_000_000_000L / rate;
        long start = System.nanoTime() + 10_000_000L;
        for (int i = 0; i < count; i++) {
            long due = start + i * period;
            long wait;
            while ((wait = due - System.nanoTime()) > 0) {
                if (wait > SPIN_NANOS) {
                    LockSupport.parkNanos(wait - SPIN_NANOS);
                }
                else {
                    Thread.onSpinWait();
                }
            }
            publish.publish(i, due);
        }
    }

    /** One paced publish. */
    @FunctionalInterface
    interface DuePublish {

        void publish(int index, long dueNanos);

    }

}
