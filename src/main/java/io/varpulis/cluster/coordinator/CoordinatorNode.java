package io.varpulis.cluster.coordinator;

import io.nats.client.Connection;
import io.varpulis.cluster.node.NodeLifecycle;
import io.varpulis.container.DeliveryContainer;
import io.varpulis.container.DeliveryContainerFactory;
import io.varpulis.jetstream.ConsumerSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.TaskScheduler;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;

/**
 * A coordinator (SPEC sections 5 and 9), started and stopped: the lifecycle of its parts,
 * each a bean. Every coordinator of a cluster answers its registrations
 * ({@link RegistrationResponder}), consumes every heartbeat with its own durable
 * {@code hb_{coordinator id}} ({@link HeartbeatListener},
 * {@link HeartbeatReconciliation}), watches the group store ({@link GroupDeclarations}),
 * checks its workers every second at most ({@link WorkerHealthCheck}) and knows where
 * each pipeline runs: a follower is warm. Exactly one of them leads
 * ({@link LeaderElection}); only the leader places pipelines and sends commands
 * ({@link PlacementLoop}), each carrying its epoch. What the coordinator knows is read
 * through {@link ClusterQueries}.
 */
public class CoordinatorNode implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(CoordinatorNode.class);

    /** The longest wait between two health checks of the workers. */
    private static final Duration HEALTH_CHECK_PERIOD = Duration.ofSeconds(1);

    /**
     * The parts a coordinator starts, in this order, and stops.
     *
     * @param probe whether the heartbeats are heard; started first, so a replayed
     * heartbeat is measured against the server's time
     * @param groups the group store's watch and the configured groups
     * @param placement the placement loop, adopting from heartbeats for one
     * heartbeat-timeout after the start
     * @param registrations answers the workers' registrations
     * @param heartbeats consumes the workers' heartbeats
     * @param health the workers' health check, run with each tick before a placement
     * round
     * @param election contends for the lead, telling the placement loop
     */
    public record Parts(ReachabilityProbe probe, GroupDeclarations groups, PlacementLoop placement,
            RegistrationResponder registrations, HeartbeatListener heartbeats, WorkerHealthCheck health,
            LeaderElection election) {
    }

    private final CoordinatorSettings settings;

    private final Connection connection;

    private final TaskScheduler scheduler;

    private final DeliveryContainerFactory containers;

    private final ConsumerSettings consumerSettings;

    private final Parts parts;

    private volatile boolean running;

    private DeliveryContainer heartbeatConsumption;

    private ScheduledFuture<?> ticks;

    /**
     * @param settings the cluster's name, heartbeat-interval and -timeout
     * @param connection the coordinator's connection, for what the start says
     * @param scheduler the coordinator's scheduler (one thread): the ticks and the
     * placement rounds
     * @param containers runs the heartbeat consumer on the substrate
     * @param consumerSettings durable consumer settings
     * @param parts what it starts
     */
    public CoordinatorNode(CoordinatorSettings settings, Connection connection, TaskScheduler scheduler,
            DeliveryContainerFactory containers, ConsumerSettings consumerSettings, Parts parts) {
        this.settings = settings;
        this.connection = connection;
        this.scheduler = scheduler;
        this.containers = containers;
        this.consumerSettings = consumerSettings;
        this.parts = parts;
    }

    @Override
    public synchronized void start() {
        parts.placement().start();
        parts.probe().start();
        parts.groups().start();
        parts.registrations().start();
        heartbeatConsumption = parts.heartbeats().start(containers, consumerSettings);
        // Health is checked every second (at most), so a worker is unhealthy within a
        // second of its timeout; placement
        // rounds run every heartbeat-interval, or at once when something asks for one.
        Duration period = Duration
            .ofMillis(Math.min(settings.heartbeats().interval().toMillis(), HEALTH_CHECK_PERIOD.toMillis()));
        ticks = scheduler.scheduleWithFixedDelay(this::tick, Instant.now().plus(period), period);
        running = true;
        parts.election().start(parts.placement());
        log.info(
                "coordinator {} of cluster {} started on {} (substrate {}, heartbeat-timeout {} ms, leader lease "
                        + "{} ms)",
                parts.election().coordinatorId(), settings.clusterName(), connection.getConnectedUrl(),
                containers.transport().substrate(), settings.heartbeats().timeout().toMillis(),
                parts.election().ttl().toMillis());
    }

    private void tick() {
        try {
            if (parts.health().check()) {
                parts.placement().requestRound();
            }
            parts.placement().runIfDue();
        }
        catch (RuntimeException e) {
            log.warn("coordinator tick failed: {}", e.toString());
        }
    }

    @Override
    public synchronized void stop() {
        if (!running) {
            return;
        }
        running = false;
        parts.placement().stop();
        parts.election().close();
        ticks.cancel(true);
        heartbeatConsumption.stop();
        parts.groups().stop();
        parts.registrations().stop();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * @return the lifecycle phase: stops after HTTP requests finished, before the
     * connection closes
     */
    @Override
    public int getPhase() {
        return NodeLifecycle.PHASE;
    }

}
