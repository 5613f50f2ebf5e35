package io.varpulis.cluster;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Workers that heartbeat to this coordinator without being registered with it (SPEC section 17): after a coordinator
 * restart, every worker is one until it registers again. Ours do so when asked ({@code register} command); a Rust
 * Varpulis 0.11 worker does not know that command and registers only when it starts, so it stays here, listed as
 * {@value #STATUS} with the reason, for as long as it heartbeats (and heartbeat-timeout after). Thread-safe.
 */
public class UnregisteredWorkers {

    /** The status these workers are listed with. */
    public static final String STATUS = "heartbeating_unregistered";

    private final Clock clock;
    private final Duration timeout;
    private final Map<String, Entry> workers = new ConcurrentHashMap<>();

    /**
     * @param clock   the time of heartbeats
     * @param timeout heartbeat-timeout: a worker silent for longer is dropped from the list
     */
    public UnregisteredWorkers(Clock clock, Duration timeout) {
        this.clock = clock;
        this.timeout = timeout;
    }

    /**
     * Records a heartbeat of a worker this coordinator does not know.
     *
     * @param workerId the worker
     */
    public void heartbeat(String workerId) {
        Instant now = clock.instant();
        workers.compute(workerId, (id, old) -> old == null
                ? new Entry(id, STATUS, now, now, "asked to register again (this coordinator does not know it); "
                + "no answer yet")
                : new Entry(id, STATUS, old.firstHeartbeat(), now, old.reason()));
    }

    /**
     * Records the worker's answer to the {@code register} command.
     *
     * @param workerId the worker
     * @param reply    its reply, {@code null} when none came
     * @param failure  why no reply came, or {@code null}
     */
    public void answered(String workerId, JsonNode reply, Throwable failure) {
        String reason;
        if (reply != null && reply.path("error").asText("").startsWith("unknown command")) {
            reason = "it does not know the register command (it answered \"" + reply.path("error").asText()
                    + "\"): a Rust Varpulis worker registers only when it starts; restart it to register it with "
                    + "this coordinator. It runs none of this cluster's pipelines either way";
        } else if (reply != null && reply.has("error")) {
            reason = "it refused to register again: " + reply.path("error").asText();
        } else if (reply == null) {
            reason = "it did not answer the register command (" + (failure == null ? "no reply" : failure.getMessage())
                    + ")";
        } else {
            return;
        }
        workers.computeIfPresent(workerId, (id, old) -> new Entry(id, STATUS, old.firstHeartbeat(),
                old.lastHeartbeat(), reason));
    }

    /**
     * @param workerId a worker that registered
     */
    public void registered(String workerId) {
        workers.remove(workerId);
    }

    /**
     * @return the workers heartbeating unregistered now (a heartbeat within heartbeat-timeout), by id
     */
    public List<Entry> list() {
        Instant limit = clock.instant().minus(timeout);
        workers.values().removeIf(e -> e.lastHeartbeat().isBefore(limit));
        return workers.values().stream().sorted(Comparator.comparing(Entry::workerId)).toList();
    }

    /**
     * One such worker, as {@code GET /api/v1/cluster/workers} lists it.
     *
     * @param workerId       the worker
     * @param status         {@value #STATUS}
     * @param firstHeartbeat its first heartbeat this coordinator saw unregistered
     * @param lastHeartbeat  its last one
     * @param reason         why it is not registered, and what to do
     */
    public record Entry(@JsonProperty("worker_id") String workerId,
                        @JsonProperty("status") String status,
                        @JsonProperty("first_heartbeat") Instant firstHeartbeat,
                        @JsonProperty("last_heartbeat") Instant lastHeartbeat,
                        @JsonProperty("reason") String reason) {
    }
}
