package io.varpulis.pipeline;

/**
 * Where a pipeline's state reports what its writes cost and what the servers lost (issue
 * 43).
 *
 * @param resent counts one write sent again ({@code varpulis.state.write.retries})
 * @param rollback records a bucket that went back below its writer's confirmed writes, or
 * is gone, as a loss
 */
public record StateLosses(Runnable resent, StateRollback rollback) {

    /**
     * @return losses that count nothing and say a rollback at ERROR only: for a state
     * opened outside a node
     */
    static StateLosses logged() {
        return new StateLosses(() -> {
        }, StateRollback.logged());
    }

}
