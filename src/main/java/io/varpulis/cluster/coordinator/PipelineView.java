package io.varpulis.cluster.coordinator;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.time.Instant;

/**
 * One pipeline of a group as the operator API shows it ({@code "pipelines"} of {@code GET
 * /api/v1/cluster/pipeline-groups/{id}}): {@code {"state": "running", "worker":
 * "worker-1", "epoch": N, "since": "..."}}, or {@code {"state": "unplaced", "last_error":
 * "deploy on worker-2 failed at ...: ...", "note": "..."}}.
 *
 * @param state {@value #RUNNING}, {@value #DEPLOYING} or {@value #UNPLACED}
 * @param worker the worker it is placed on, when placed
 * @param epoch its placement epoch, when placed
 * @param since when it entered its state, when placed
 * @param lastError the last failed deploy, while unplaced
 * @param note what happens next, while unplaced
 * @param reason why it cannot run, as a worker reported it (its state could not be
 * opened: {@code "worker w1
 *                  cannot open its state: cannot open state bucket ...: written meanwhile"}),
 * while not running
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PipelineView(@JsonProperty("state") String state, @JsonProperty("worker") String worker,
        @JsonProperty("epoch") Long epoch, @JsonProperty("since") Instant since,
        @JsonProperty("last_error") String lastError, @JsonProperty("note") String note,
        @JsonProperty("reason") String reason) {

    /** The worker runs it. */
    public static final String RUNNING = Placement.RUNNING;

    /** The deploy is on its way. */
    public static final String DEPLOYING = Placement.DEPLOYING;

    /**
     * It runs nowhere (no ready worker yet, its last deploy failed, or it is being
     * adopted).
     */
    public static final String UNPLACED = "unplaced";

    /**
     * @param placed its placement, or {@code null}
     * @param failed its last failed deploy, or {@code null}
     * @param adopting until when the coordinator adopts from heartbeats, or {@code null}
     * @param leader the cluster's leader, or {@code null}
     * @param reason why it cannot run, as a worker reported it, or {@code null}
     * @return the view
     */
    static PipelineView of(Placement placed, ClusterState.FailedDeploy failed, Instant adopting, String leader,
            String reason) {
        if (placed != null) {
            return new PipelineView(placed.state(), placed.worker(), placed.epoch(), placed.since(), null, null,
                    reason);
        }
        String error = failed == null ? null
                : "deploy on " + failed.worker() + " failed at " + failed.at() + ": " + failed.error();
        String note;
        if (failed != null) {
            note = "the leader" + (leader == null ? "" : " (" + leader + ")") + " places it again at its next "
                    + "placement round"
                    + (adopting == null ? "" : ", once it stops adopting from heartbeats at " + adopting)
                    + ", on another worker when there is one";
        }
        else if (adopting != null) {
            note = "adopting from heartbeats until " + adopting + ": a pipeline a worker still runs is adopted "
                    + "there, the others are placed then";
        }
        else if (leader == null) {
            note = "no coordinator leads the cluster now; the next leader places it";
        }
        else {
            note = "the leader (" + leader + ") places it as soon as a worker is ready";
        }
        return new PipelineView(UNPLACED, null, null, null, error, note, reason);
    }
}
