package io.varpulis.cluster.worker;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.varpulis.cluster.node.NodeHealth;
import io.varpulis.cluster.node.NodeLifecycle;
import io.varpulis.cluster.protocol.WorkerHeartbeat;
import io.varpulis.delivery.PipelineHost;
import io.varpulis.support.DaemonThreads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.TaskScheduler;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A worker (SPEC sections 5 and 9), started and stopped: it takes its worker id's lease
 * ({@link WorkerIdLease}, JetStream) and renews it every heartbeat-interval on a thread
 * of its own, then serves its commands ({@link CommandResponder}), heartbeats
 * ({@link HeartbeatPublisher}) and registers ({@link WorkerRegistration}).
 * <p>
 * A process whose worker id is held by another live process subscribes to nothing and
 * runs nothing: it waits, unready with the holder in its {@code cluster} health details,
 * until the id is free; a worker whose id is taken from it stops its pipelines at once
 * and waits the same way.
 * <p>
 * On stop it stops taking commands, waits up to drain-timeout for in-flight applies to
 * finish and ack (heartbeats go on meanwhile), leaves anything unfinished unacked for
 * redelivery, and releases its id.
 */
public class WorkerNode implements SmartLifecycle, NodeHealth {

    private static final Logger log = LoggerFactory.getLogger(WorkerNode.class);

    /**
     * The parts a worker runs while it holds its id.
     *
     * @param commands serves its commands
     * @param heartbeats publishes its heartbeats
     * @param registration registers it with the coordinators
     */
    public record Parts(CommandResponder commands, HeartbeatPublisher heartbeats, WorkerRegistration registration) {
    }

    private final WorkerIdentity identity;

    private final WorkerSettings settings;

    private final Connection connection;

    private final PipelineHost host;

    private final WorkerIdLease idLease;

    private final TaskScheduler leaseScheduler;

    private final Parts parts;

    private final AtomicBoolean joining = new AtomicBoolean();

    private volatile boolean running;

    private volatile boolean joined;

    private volatile WorkerIdLease.Holder idHolder;

    private ScheduledFuture<?> renewals;

    /**
     * @param identity this worker's id, address and substrate
     * @param settings the cluster's name, heartbeat-interval, drain-timeout and
     * worker-lease-ttl
     * @param connection the worker's connection, for what the start says
     * @param host runs the pipelines (drained on stop)
     * @param idLease the lease of this worker id, or {@code null} on core (no key-value
     * store: duplicates are not detected)
     * @param leaseScheduler the id lease's own scheduler (one thread, never the
     * heartbeats')
     * @param parts what runs while it holds its id
     */
    public WorkerNode(WorkerIdentity identity, WorkerSettings settings, Connection connection, PipelineHost host,
            WorkerIdLease idLease, TaskScheduler leaseScheduler, Parts parts) {
        this.identity = identity;
        this.settings = settings;
        this.connection = connection;
        this.host = host;
        this.idLease = idLease;
        this.leaseScheduler = leaseScheduler;
        this.parts = parts;
    }

    @Override
    public synchronized void start() {
        running = true;
        joinInBackground();
        log.info("worker {} of cluster {} started on {} (substrate {})", identity.workerId(), settings.clusterName(),
                connection.getConnectedUrl(), identity.substrate());
    }

    @Override
    public synchronized void stop() {
        if (!running) {
            return;
        }
        parts.commands().stop();
        // Heartbeats go on while draining: a drain longer than heartbeat-timeout must not
        // get the pipelines moved
        // while they still finish here.
        int pipelines = host.drain(settings.drainTimeout());
        running = false;
        parts.registration().stop();
        parts.heartbeats().stop();
        stopRenewals();
        if (idLease != null && joined) {
            idLease.release();
        }
        joined = false;
        log.info("worker {} stopped; drained {} pipeline(s)", identity.workerId(), pipelines);
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * @return the lifecycle phase: the worker drains after HTTP requests finished, before
     * the connection closes
     */
    @Override
    public int getPhase() {
        return NodeLifecycle.PHASE;
    }

    /**
     * @return this worker's id
     */
    public String workerId() {
        return identity.workerId();
    }

    /**
     * @return {@code true} once a coordinator accepted the registration
     */
    public boolean isRegistered() {
        return parts.registration().isRegistered();
    }

    /**
     * @return whether this process holds its worker id (always, on core) and serves its
     * commands
     */
    public boolean holdsId() {
        return joined;
    }

    /**
     * @return the newest leader epoch seen in a command, 0 before the first
     */
    public long newestLeaderEpoch() {
        return parts.commands().newestLeaderEpoch();
    }

    /**
     * @return the heartbeat this worker would publish now
     * ({@link HeartbeatPublisher#current()})
     */
    public WorkerHeartbeat currentHeartbeat() {
        return parts.heartbeats().current();
    }

    /**
     * @return why this worker is not part of the cluster (another process holds its id,
     * or a coordinator refused it for good), empty while it is or is becoming part of it
     */
    @Override
    public Optional<String> unreadyReason() {
        WorkerIdLease.Holder holder = idHolder;
        if (holder != null) {
            return Optional.of("worker id " + identity.workerId() + " is held by " + holder.describe() + ": this "
                    + "process runs nothing until that one stops (or " + settings.workerLeaseTtl().toSeconds()
                    + " s after its last renewal); give each worker its own VARPULIS_WORKER_ID");
        }
        return parts.registration().refusal();
    }

    /**
     * @return the {@code cluster} health details of this worker:
     * {@code {"worker_id", "cluster", "holds_id", "registered", "leader_epoch_seen",
     * "pipelines_running", "state_failures"?, "reason"?}}, {@code state_failures} naming
     * each unit whose state could not be opened or was lost (its bucket deleted) here,
     * until it is deployed here again
     */
    @Override
    public Map<String, Object> healthDetails() {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("worker_id", identity.workerId());
        details.put("cluster", settings.clusterName());
        details.put("holds_id", joined);
        details.put("registered", isRegistered());
        details.put("leader_epoch_seen", newestLeaderEpoch());
        details.put("pipelines_running", host.status().size());
        Map<String, String> stateFailures = host.stateFailures();
        if (!stateFailures.isEmpty()) {
            details.put("state_failures", stateFailures);
        }
        unreadyReason().ifPresent(reason -> details.put("reason", reason));
        return details;
    }

    private void joinInBackground() {
        if (joining.compareAndSet(false, true)) {
            DaemonThreads.named("varpulis-join-" + identity.workerId()).newThread(this::joinLoop).start();
        }
    }

    /**
     * Takes the worker id (waiting while a live process holds it), then serves commands,
     * heartbeats, registers.
     */
    private void joinLoop() {
        try {
            while (running && !joined) {
                if (idLease != null && !acquireId()) {
                    Thread.sleep(settings.heartbeatInterval().toMillis());
                    continue;
                }
                synchronized (this) {
                    if (!running) {
                        return;
                    }
                    joined = true;
                    idHolder = null;
                    parts.commands().start();
                    parts.heartbeats().start();
                    if (idLease != null) {
                        renewals = leaseScheduler.scheduleAtFixedRate(this::renewId,
                                Instant.now().plus(settings.heartbeatInterval()), settings.heartbeatInterval());
                    }
                }
                parts.registration().start();
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        finally {
            joining.set(false);
        }
    }

    private boolean acquireId() {
        try {
            Optional<WorkerIdLease.Holder> holder = idLease.acquire();
            if (holder.isEmpty()) {
                if (idHolder != null) {
                    log.info("worker id {} is free again; this process takes it", identity.workerId());
                }
                return true;
            }
            if (idHolder == null) {
                log.error(
                        "worker id {} is held by {}: this process runs nothing and stays unready until that one "
                                + "stops; give each worker its own VARPULIS_WORKER_ID",
                        identity.workerId(), holder.get().describe());
            }
            idHolder = holder.get();
        }
        catch (IOException | JetStreamApiException | RuntimeException e) {
            log.warn("cannot take worker id {} yet ({}); retrying in {} ms", identity.workerId(), e.toString(),
                    settings.heartbeatInterval().toMillis());
        }
        return false;
    }

    private void renewId() {
        try {
            idLease.renew().ifPresent(this::lostId);
        }
        catch (RuntimeException e) {
            log.warn("worker id {}: its lease was not renewed ({}); trying again in {} ms", identity.workerId(),
                    e.toString(), settings.heartbeatInterval().toMillis());
        }
    }

    /**
     * Another process took this worker's id (its lease lapsed meanwhile): stop
     * everything, wait for it again.
     */
    private synchronized void lostId(WorkerIdLease.Holder holder) {
        log.error("worker id {} was taken by {} while this process could not renew it; stopping every pipeline here "
                + "and waiting until the id is free", identity.workerId(), holder.describe());
        idHolder = holder;
        joined = false;
        parts.registration().stop();
        parts.commands().stop();
        parts.heartbeats().stop();
        stopRenewals();
        host.drain(Duration.ZERO);
        joinInBackground();
    }

    private void stopRenewals() {
        if (renewals != null) {
            renewals.cancel(false);
            renewals = null;
        }
    }

}
