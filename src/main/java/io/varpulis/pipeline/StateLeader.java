package io.varpulis.pipeline;

import io.varpulis.pipeline.KeyValueState.StateLostException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The leader of one state's bucket, as its {@link StateWriter} meets it: looks up what it
 * holds, steps it down when it stays behind the writer's confirmed writes, and records
 * the servers' loss ({@link StateRollback}: ERROR, {@code varpulis.jetstream.losses})
 * when the bucket is gone or its leaders stay behind for good.
 * <p>
 * A leader found holding less than the writer's confirmed writes for {@code behindFor}
 * (it lost, or has not applied, what its peers stored: issue 41's slow-disk runs met a
 * new leader on a slow disk holding only the fence for minutes, its peers holding 139
 * writes more) is asked to step down, at most every {@code behindFor}, with a WARN; after
 * {@link #MAX_STEP_DOWNS} step-downs in a row that did not help, the servers lost
 * confirmed writes. Its look-ups and step-downs run on the writer's serial executor only;
 * {@link #gone} may be called from any thread.
 */
final class StateLeader {

    private static final Logger log = LoggerFactory.getLogger(StateLeader.class);

    /**
     * How long a leader may hold less than the writer's confirmed writes before it is
     * asked to step down: a leader just elected applies what it holds within milliseconds
     * on a healthy disk.
     */
    static final Duration BEHIND_FOR = Duration.ofSeconds(5);

    /** Step-downs of leaders behind the confirmed writes, in a row, before giving up. */
    static final int MAX_STEP_DOWNS = 3;

    private final String bucket;

    private final Supplier<StateReads.Held> lookUp;

    private final Supplier<String> stepDown;

    private final StateRollback rollback;

    private final long behindForNanos;

    private long behindSince;

    private long lastStepDown;

    private int stepDowns;

    /**
     * @param bucket the bucket
     * @param lookUp reads what the bucket's stream leader holds (throws as
     * {@link StateReads#held})
     * @param stepDown asks the bucket's stream leader to step down, answering what the
     * server said
     * @param rollback records a bucket gone, or its leaders behind for good, as a loss
     * @param behindFor {@link #BEHIND_FOR} in the product
     */
    StateLeader(String bucket, Supplier<StateReads.Held> lookUp, Supplier<String> stepDown, StateRollback rollback,
            Duration behindFor) {
        this.bucket = bucket;
        this.lookUp = lookUp;
        this.stepDown = stepDown;
        this.rollback = rollback;
        this.behindForNanos = behindFor.toNanos();
    }

    /**
     * @return what the leader holds
     * @throws KeyValueState.StateException as {@link StateReads#held} (a
     * {@link StateLostException} when the bucket is gone)
     */
    StateReads.Held held() {
        return lookUp.get();
    }

    /**
     * Records the bucket found gone under its writer as a loss (once per writer: its
     * writer calls this when the loss ends it).
     * @param confirmed the bucket sequence of the writer's last confirmed write
     */
    void gone(long confirmed) {
        rollback.gone(bucket, confirmed);
    }

    /**
     * Steps a leader holding less than the writer's confirmed writes down, or gives up
     * once step-downs did not help.
     * @param leaderSequence the leader's last sequence
     * @param confirmed the bucket sequence of the writer's last confirmed write
     * @return {@code null}, or the exception the writer ends with (the loss recorded)
     */
    StateLostException behind(long leaderSequence, long confirmed) {
        long now = System.nanoTime();
        if (leaderSequence >= confirmed) {
            behindSince = 0;
            stepDowns = 0;
            return null;
        }
        behindSince = behindSince == 0 ? now : behindSince;
        if (now - behindSince < behindForNanos || lastStepDown != 0 && now - lastStepDown < behindForNanos) {
            return null;
        }
        if (stepDowns >= MAX_STEP_DOWNS) {
            rollback.wentBack(bucket, leaderSequence, confirmed);
            return new StateLostException("state bucket " + bucket + ": its leaders hold sequence " + leaderSequence
                    + ", behind sequence " + confirmed + " at which this writer's writes were confirmed, after "
                    + stepDowns + " leader step-downs: the servers lost confirmed writes", null);
        }
        stepDowns++;
        lastStepDown = now;
        log.warn("state bucket {}: its leader holds sequence {}, behind sequence {} at which this writer's writes "
                + "were confirmed, for {} s (it lost, or has not applied, what its peers stored); asked it to step "
                + "down ({} of {}): {}", bucket, leaderSequence, confirmed,
                String.format(Locale.ROOT, "%.1f", (now - behindSince) / 1e9), stepDowns, MAX_STEP_DOWNS,
                stepDown.get());
        return null;
    }

}
