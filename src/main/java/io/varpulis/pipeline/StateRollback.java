package io.varpulis.pipeline;

import io.varpulis.jetstream.JetStreamLoss;
import io.varpulis.jetstream.JetStreamLosses;

import java.time.Instant;

/**
 * Says that a pipeline's state bucket went back (SPEC section 21: never silent): its last
 * sequence is below the last write the pipeline had confirmed, or it is gone, so writes
 * the servers acknowledged are gone (a power loss of servers running without
 * {@code sync_interval: always}). Recorded as a
 * {@link JetStreamLoss.Kind#STATE_WENT_BACK} loss: ERROR,
 * {@code varpulis.jetstream.losses}, the {@code jetstream} health. The state then stops
 * its writer ({@link KeyValueState.StateFencedException}) so that the pipeline is placed
 * again and reads what the bucket holds, rather than writing on over a chain that no
 * longer exists.
 */
public final class StateRollback {

    private final JetStreamLosses losses;

    /**
     * @param losses where the node records what the servers lost
     */
    public StateRollback(JetStreamLosses losses) {
        this.losses = losses;
    }

    /**
     * @return a rollback said in a ledger of its own (ERROR only): for a state opened
     * outside a node
     */
    static StateRollback logged() {
        return new StateRollback(new JetStreamLosses());
    }

    /**
     * @param bucket the state's bucket
     * @param lastSequence the bucket's last sequence now
     * @param confirmedSequence the sequence of the writer's last confirmed write
     * @return why the writer stops, for its fence
     */
    String wentBack(String bucket, long lastSequence, long confirmedSequence) {
        String why = "the bucket went back: its last sequence is " + lastSequence + ", below the " + confirmedSequence
                + " of this writer's last confirmed write";
        losses.record(new JetStreamLoss(JetStreamLoss.Kind.STATE_WENT_BACK, "KV_" + bucket, bucket, lastSequence + 1,
                confirmedSequence, -1,
                "state bucket " + bucket + " went back: its last sequence is " + lastSequence + ", below the "
                        + confirmedSequence + " its pipeline had written and seen confirmed; writes the servers "
                        + "acknowledged are gone (a power loss of servers without sync_interval: always?), and the "
                        + "pipeline is placed again on what the bucket holds",
                Instant.now()));
        return why;
    }

    /**
     * @param bucket the state's bucket, found gone
     * @param confirmedSequence the sequence of the writer's last confirmed write
     * @return why the writer stops, to follow the bucket's name ("was deleted")
     */
    String gone(String bucket, long confirmedSequence) {
        losses.record(new JetStreamLoss(JetStreamLoss.Kind.STATE_WENT_BACK, "KV_" + bucket, bucket, 1,
                confirmedSequence, -1,
                "state bucket " + bucket + " is gone under its writer (its last confirmed write was sequence "
                        + confirmedSequence + "): everything its pipeline wrote is lost (a power loss of servers "
                        + "without sync_interval: always, or deleted by hand), and the pipeline is placed again on "
                        + "an empty bucket",
                Instant.now()));
        return "was deleted";
    }

}
