package io.varpulis.cluster.coordinator;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.cluster.protocol.WorkerHeartbeat;
import io.varpulis.container.DeliveryAdapter;
import io.varpulis.container.DeliveryContainer;
import io.varpulis.container.DeliveryContainerFactory;
import io.varpulis.container.Outcome;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.jetstream.ConsumerSettings;
import io.varpulis.nats.Subjects;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.ParkReason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The coordinator's side of the heartbeat path: consumes every worker's heartbeats with
 * its durable {@code hb_{coordinator id}}, so heartbeats published while the coordinator
 * was down reach it when it is back (JetStream). A heartbeat whose stream timestamp is
 * older than heartbeat-timeout is acked and discarded, never applied: replayed after a
 * restart, it would mark a dead worker alive (ADR-007). The age is measured on the
 * server's clock ({@link ServerClock}), never against this host's wall clock: a
 * coordinator whose clock runs ahead would find every heartbeat stale (SPEC section 9).
 * <p>
 * An undecodable heartbeat is parked under unit {@code coordinator:{id}}. Runs in a
 * {@link DeliveryContainer} like every durable consumer (SPEC section 18), unobserved
 * (heartbeats have no traces).
 */
public class HeartbeatListener implements DeliveryAdapter {

    private static final Logger log = LoggerFactory.getLogger(HeartbeatListener.class);

    private final String coordinatorId;

    private final Duration heartbeatTimeout;

    private final ServerClock serverClock;

    private final ObjectMapper mapper;

    private final HeartbeatSink sink;

    private final SubstrateMetrics metrics;

    /**
     * @param coordinatorId the coordinator's stable id (names the durable)
     * @param heartbeatTimeout heartbeats older than this are stale
     * @param serverClock measures a heartbeat's age from its stream timestamp, on the
     * server's clock
     * @param mapper reads the heartbeat JSON
     * @param sink applies a fresh heartbeat
     * @param metrics counts applied and stale heartbeats
     */
    public HeartbeatListener(String coordinatorId, Duration heartbeatTimeout, ServerClock serverClock,
            ObjectMapper mapper, HeartbeatSink sink, SubstrateMetrics metrics) {
        this.coordinatorId = coordinatorId;
        this.heartbeatTimeout = heartbeatTimeout;
        this.serverClock = serverClock;
        this.mapper = mapper;
        this.sink = sink;
        this.metrics = metrics;
    }

    /**
     * Starts consuming {@code varpulis.cluster.heartbeat.>} with the durable
     * {@code hb_{coordinator id}}.
     * @param containers runs the durable consumer
     * @param settings consumer settings
     * @return the running container; stop it to stop consuming
     */
    public DeliveryContainer start(DeliveryContainerFactory containers, ConsumerSettings settings) {
        String unit = "coordinator:" + coordinatorId;
        return containers
            .create(VarpulisJetStream.heartbeatConsumer(coordinatorId, settings), unit,
                    metrics.deliveries(unit, SubstrateMetrics.UNPARTITIONED, false), 1, this)
            .start();
    }

    /**
     * Applies a fresh heartbeat.
     */
    @FunctionalInterface
    public interface HeartbeatSink {

        /**
         * @param workerId the worker, from the heartbeat's subject
         * @param heartbeat the heartbeat
         * @param age how long ago the stream stored it, on the server's clock
         * (JetStream), or zero (core): the worker was alive that long ago, which after a
         * coordinator restart can be a while
         * @return whether it was applied: {@code false} for a worker not registered here,
         * or of another cluster (counted by {@code varpulis.heartbeats.unknown}, not
         * {@code varpulis.heartbeats.applied})
         */
        boolean apply(String workerId, WorkerHeartbeat heartbeat, Duration age);

    }

    @Override
    public CompletionStage<Outcome> handle(Delivery delivery) {
        Duration age = delivery.storedAt().map(serverClock::ageOf).orElse(Duration.ZERO);
        if (age.compareTo(heartbeatTimeout) > 0) {
            metrics.heartbeatStale();
            log.debug("discarded a stale heartbeat on {} ({} ms old on the server's clock, timeout {} ms)",
                    delivery.subject(), age.toMillis(), heartbeatTimeout.toMillis());
            return CompletableFuture.completedFuture(Outcome.applied());
        }
        String workerId = delivery.subject().substring(Subjects.HEARTBEAT_ROOT.length() + 1);
        WorkerHeartbeat heartbeat;
        try {
            heartbeat = mapper.readValue(delivery.data(), WorkerHeartbeat.class);
        }
        catch (IOException e) {
            return CompletableFuture.completedFuture(Outcome.poison(ParkReason.UNDECODABLE, e));
        }
        if (sink.apply(workerId, heartbeat, age)) {
            metrics.heartbeatApplied();
        }
        else {
            metrics.heartbeatUnknown();
        }
        return CompletableFuture.completedFuture(Outcome.applied());
    }

}
