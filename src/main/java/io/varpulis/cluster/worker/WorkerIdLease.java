package io.varpulis.cluster.worker;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.api.KeyValueEntry;
import io.varpulis.cluster.node.KeyValueLease;
import io.varpulis.cluster.node.WorkerIds;
import io.varpulis.cluster.protocol.ControlPlaneBuckets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * One live process per worker id (SPEC section 9): the process holds key {@code {worker
 * id}} of the JetStream key-value bucket {@value ControlPlaneBuckets#WORKER_IDS} as a
 * {@link KeyValueLease}, renewed with every heartbeat; a second process with the id of a
 * live worker finds the key held and runs nothing until the holder is gone. Worker ids
 * are per NATS account (their command subjects are), so the key carries no cluster name.
 * Value: {@code {"worker_id", "cluster", "process": "<uuid>", "host", "pid",
 * "started_at"}}.
 * <p>
 * A holder that stopped cleanly deleted the key. One that was killed leaves it until the
 * TTL lapses, except for a process restarted on the same host: when the holder's host is
 * this one and its process is gone (no process with its pid, or one started at another
 * time), the key is taken over at once, so a worker restarted after a crash comes back
 * without waiting out the TTL.
 */
public final class WorkerIdLease {

    private static final Logger log = LoggerFactory.getLogger(WorkerIdLease.class);

    private final KeyValueLease lease;

    private final ObjectMapper mapper;

    private final Holder self;

    private WorkerIdLease(KeyValueLease lease, ObjectMapper mapper, Holder self) {
        this.lease = lease;
        this.mapper = mapper;
        this.self = self;
    }

    /**
     * @param connection the connection
     * @param workerId the worker id, the key
     * @param cluster this worker's cluster, recorded in the value
     * @param settings the bucket's TTL (worker-lease-ttl) and replicas, the requests'
     * timeout
     * @param mapper writes and reads the value
     * @return the lease of this process, not held yet
     * @throws IllegalStateException when the bucket cannot be created or opened
     */
    public static WorkerIdLease open(Connection connection, String workerId, String cluster,
            KeyValueLease.Settings settings, ObjectMapper mapper) {
        KeyValueLease lease = KeyValueLease.open(connection, ControlPlaneBuckets.WORKER_IDS, workerId, settings,
                "Varpulis worker ids held by live processes");
        ProcessHandle me = ProcessHandle.current();
        Holder self = new Holder(workerId, cluster, UUID.randomUUID().toString(), WorkerIds.hostName(), me.pid(),
                me.info().startInstant().orElse(null));
        return new WorkerIdLease(lease, mapper, self);
    }

    /**
     * Takes the id when it is free, or held by a process of this host that is gone.
     * @return empty when this process holds the id now; else the live holder
     * @throws IOException when the server does not answer
     * @throws JetStreamApiException when it refuses
     */
    public Optional<Holder> acquire() throws IOException, JetStreamApiException {
        byte[] value = mapper.writeValueAsBytes(self);
        if (lease.tryAcquire(value)) {
            return Optional.empty();
        }
        Optional<KeyValueEntry> entry = lease.read();
        if (entry.isEmpty()) {
            // Expired between the two requests: the next attempt takes it.
            return Optional.of(new Holder(self.workerId(), null, null, null, 0, null));
        }
        Holder holder = read(entry.get());
        if (self.process().equals(holder.process()) && lease.takeOver(value, entry.get().getRevision())) {
            // This process's own write, whose reply was lost: it still holds the id.
            return Optional.empty();
        }
        if (holder.isGoneFrom(self) && lease.takeOver(value, entry.get().getRevision())) {
            log.info("worker id {} was held by process {} on this host, which is gone; taken over", self.workerId(),
                    holder.pid());
            return Optional.empty();
        }
        return Optional.of(holder);
    }

    /**
     * Renews the id; when another process holds it now, says which.
     * @return empty while this process holds the id (or cannot tell: NATS unreachable),
     * else the process that took it
     */
    public Optional<Holder> renew() {
        KeyValueLease.Renewal renewal;
        try {
            renewal = lease.renew(mapper.writeValueAsBytes(self));
        }
        catch (IOException e) {
            throw new IllegalStateException("cannot write the worker id lease value", e);
        }
        if (renewal != KeyValueLease.Renewal.LOST) {
            return Optional.empty();
        }
        // Expired while NATS was away, or taken: take it back if nobody holds it.
        try {
            return acquire();
        }
        catch (IOException | JetStreamApiException e) {
            return Optional.empty();
        }
    }

    /**
     * Deletes the key at this process's revision, so the next process with this id starts
     * at once.
     */
    public void release() {
        lease.release();
    }

    /**
     * @return this process, as the value shows it
     */
    public Holder self() {
        return self;
    }

    private Holder read(KeyValueEntry entry) {
        try {
            return mapper.readValue(entry.getValue(), Holder.class);
        }
        catch (IOException e) {
            return new Holder(self.workerId(), null, "unreadable", null, 0, null);
        }
    }

    /**
     * The process holding a worker id.
     *
     * @param workerId the id
     * @param cluster its cluster
     * @param process a random id of the process
     * @param host its host name
     * @param pid its process id on that host
     * @param startedAt when that process started
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Holder(@JsonProperty("worker_id") String workerId, @JsonProperty("cluster") String cluster,
            @JsonProperty("process") String process, @JsonProperty("host") String host, @JsonProperty("pid") long pid,
            @JsonProperty("started_at") Instant startedAt) {

        /**
         * @return the holder in words, for logs and health details
         */
        public String describe() {
            if (host == null) {
                return "another process";
            }
            return "process " + pid + " on " + host + (cluster == null ? "" : " (cluster " + cluster + ")")
                    + (startedAt == null ? "" : ", started " + startedAt);
        }

        /**
         * Whether this holder ran on the host of {@code self} and its process no longer
         * exists there.
         */
        private boolean isGoneFrom(Holder self) {
            if (host == null || !host.equals(self.host()) || startedAt == null) {
                return false;
            }
            Optional<ProcessHandle> process = ProcessHandle.of(pid);
            return process.isEmpty()
                    || process.get().info().startInstant().map(start -> !start.equals(startedAt)).orElse(false);
        }
    }

}
