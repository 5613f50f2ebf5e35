package io.varpulis.cluster.coordinator;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.varpulis.cluster.protocol.Commands;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Workers that heartbeat to this coordinator without being registered with it (SPEC
 * section 17): after a coordinator restart, every worker is one until it registers again.
 * Ours do so when asked ({@code register} command). A Rust Varpulis 0.11 worker registers
 * only when it starts and answers that command {@code unknown command: register} (nothing
 * else in it registers again: it only publishes heartbeats, and reads no reply to them):
 * {@link #answered} then tells the coordinator to admit it from its heartbeats when that
 * is safe, or keeps it listed as {@value #STATUS} with the reason, for as long as it
 * heartbeats (and heartbeat-timeout after). Thread-safe.
 */
public class UnregisteredWorkers {

    /** The status these workers are listed with. */
    public static final String STATUS = "heartbeating_unregistered";

    private final Clock clock;

    private final Duration timeout;

    private final boolean apiKeyRequired;

    private final Map<String, Entry> workers = new ConcurrentHashMap<>();

    /**
     * @param clock the time of heartbeats
     * @param timeout heartbeat-timeout: a worker silent for longer is dropped from the
     * list
     * @param apiKeyRequired whether the cluster has an api-key: a worker is then never
     * admitted from its heartbeats, which carry no key
     */
    public UnregisteredWorkers(Clock clock, Duration timeout, boolean apiKeyRequired) {
        this.clock = clock;
        this.timeout = timeout;
        this.apiKeyRequired = apiKeyRequired;
    }

    /**
     * Records a heartbeat of a worker this coordinator does not know.
     * @param workerId the worker
     */
    public void heartbeat(String workerId) {
        Instant now = clock.instant();
        workers.compute(
                workerId, (id,
                        old) -> old == null
                                ? new Entry(id, STATUS, now, now,
                                        "asked to register again (this coordinator does not know it); "
                                                + "no answer yet")
                                : new Entry(id, STATUS, old.firstHeartbeat(), now, old.reason()));
    }

    /**
     * Records the worker's answer to the {@code register} command, and says whether to
     * admit it from its heartbeats.
     * <p>
     * Admitted only when both hold: it cannot register again by itself (it answered
     * {@code unknown command:
     * register}, as a Rust Varpulis 0.11 worker does), and the cluster has no api-key (a
     * registration would have been accepted without a secret, so admitting it skips no
     * check). It is admitted without capabilities, so no pipeline is ever placed on it:
     * it runs VPL programs, not this cluster's pipelines. With an api-key it stays
     * listed, the reason saying why and what to do.
     * @param workerId the worker
     * @param reply its reply, {@code null} when none came
     * @param failure why no reply came, or {@code null}
     * @return whether the coordinator admits it from its heartbeats
     */
    public boolean answered(String workerId, JsonNode reply, Throwable failure) {
        String reason;
        if (cannotRegisterAgain(reply)) {
            if (!apiKeyRequired) {
                return true;
            }
            reason = "it does not know the register command (it answered \"" + reply.path("error").asText()
                    + "\"): a Rust Varpulis worker registers only when it starts, and this cluster's api-key is "
                    + "checked only at registration (heartbeats carry none), so it is not admitted from its "
                    + "heartbeats; restart it to register it with this coordinator. It runs none of this cluster's "
                    + "pipelines either way";
        }
        else if (reply != null && reply.has("error")) {
            reason = "it refused to register again: " + reply.path("error").asText();
        }
        else if (reply == null) {
            reason = "it did not answer the register command (" + (failure == null ? "no reply" : failure.getMessage())
                    + ")";
        }
        else {
            return false;
        }
        workers.computeIfPresent(workerId,
                (id, old) -> new Entry(id, STATUS, old.firstHeartbeat(), old.lastHeartbeat(), reason));
        return false;
    }

    /**
     * @param reply a worker's reply to the {@code register} command, or {@code null}
     * @return whether it says the worker does not know that command (the Rust Varpulis
     * worker's {@code {"error":"unknown command: register"}})
     */
    static boolean cannotRegisterAgain(JsonNode reply) {
        return reply != null && reply.path("error").asText("").startsWith("unknown command: " + Commands.REGISTER);
    }

    /**
     * @param workerId a worker that registered
     */
    public void registered(String workerId) {
        workers.remove(workerId);
    }

    /**
     * @return the workers heartbeating unregistered now (a heartbeat within
     * heartbeat-timeout), by id
     */
    public List<Entry> list() {
        Instant limit = clock.instant().minus(timeout);
        workers.values().removeIf(e -> e.lastHeartbeat().isBefore(limit));
        return workers.values().stream().sorted(Comparator.comparing(Entry::workerId)).toList();
    }

    /**
     * One such worker, as {@code GET /api/v1/cluster/workers} lists it.
     *
     * @param workerId the worker
     * @param status {@value #STATUS}
     * @param firstHeartbeat its first heartbeat this coordinator saw unregistered
     * @param lastHeartbeat its last one
     * @param reason why it is not registered, and what to do
     */
    public record Entry(@JsonProperty("worker_id") String workerId, @JsonProperty("status") String status,
            @JsonProperty("first_heartbeat") Instant firstHeartbeat,
            @JsonProperty("last_heartbeat") Instant lastHeartbeat, @JsonProperty("reason") String reason) {
    }

}
