package io.varpulis.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.delivery.DeadLetterParker;
import io.varpulis.delivery.ParkReason;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.nats.NatsProperties;
import io.varpulis.nats.Subjects;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.DeliveryHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;

/**
 * The coordinator's side of the heartbeat path: consumes every worker's heartbeats with its durable
 * {@code hb_{coordinator id}}, so heartbeats published while the coordinator was down reach it when it is back
 * (JetStream). A heartbeat whose stream timestamp is older than heartbeat-timeout is acked and discarded, never
 * applied: replayed after a restart, it would mark a dead worker alive (ADR-007). The age is measured on the server's
 * clock ({@link ServerClock}), never against this host's wall clock: a coordinator whose clock runs ahead would find
 * every heartbeat stale (SPEC section 9).
 * <p>An undecodable heartbeat is parked under unit {@code coordinator:{id}}.
 */
public class HeartbeatListener implements DeliveryHandler {

    private static final Logger log = LoggerFactory.getLogger(HeartbeatListener.class);

    private final String coordinatorId;
    private final Duration heartbeatTimeout;
    private final ServerClock serverClock;
    private final ObjectMapper mapper;
    private final HeartbeatSink sink;
    private final SubstrateMetrics metrics;
    private final DeadLetterParker parker;

    /**
     * @param coordinatorId    the coordinator's stable id (names the durable)
     * @param heartbeatTimeout heartbeats older than this are stale
     * @param serverClock      measures a heartbeat's age from its stream timestamp, on the server's clock
     * @param mapper           reads the heartbeat JSON
     * @param sink             applies a fresh heartbeat
     * @param metrics          counts applied and stale heartbeats
     * @param parker           parks undecodable heartbeats
     */
    public HeartbeatListener(String coordinatorId, Duration heartbeatTimeout, ServerClock serverClock,
                             ObjectMapper mapper,
                             HeartbeatSink sink, SubstrateMetrics metrics,
                             DeadLetterParker parker) {
        this.coordinatorId = coordinatorId;
        this.heartbeatTimeout = heartbeatTimeout;
        this.serverClock = serverClock;
        this.mapper = mapper;
        this.sink = sink;
        this.metrics = metrics;
        this.parker = parker;
    }

    /**
     * Starts consuming {@code varpulis.cluster.heartbeat.>} with the durable {@code hb_{coordinator id}}.
     *
     * @param transport the transport
     * @param settings  consumer settings
     * @return the running consumption
     */
    public Consumption start(ClusterTransport transport, NatsProperties.Consumer settings) {
        return transport.consume(VarpulisJetStream.heartbeatConsumer(coordinatorId, settings), this);
    }

    /**
     * Applies a fresh heartbeat.
     */
    @FunctionalInterface
    public interface HeartbeatSink {

        /**
         * @param workerId  the worker, from the heartbeat's subject
         * @param heartbeat the heartbeat
         * @param age       how long ago the stream stored it, on the server's clock (JetStream), or zero (core): the
         *                  worker was alive that long ago, which after a coordinator restart can be a while
         * @return whether it was applied: {@code false} for a worker not registered here, or of another cluster
         *         (counted by {@code varpulis.heartbeats.unknown}, not {@code varpulis.heartbeats.applied})
         */
        boolean apply(String workerId, WorkerHeartbeat heartbeat, Duration age);
    }

    @Override
    public void onDelivery(Delivery delivery) {
        Duration age = delivery.storedAt().map(serverClock::ageOf).orElse(Duration.ZERO);
        if (age.compareTo(heartbeatTimeout) > 0) {
            delivery.ack();
            metrics.heartbeatStale();
            log.debug("discarded a stale heartbeat on {} ({} ms old on the server's clock, timeout {} ms)",
                    delivery.subject(), age.toMillis(), heartbeatTimeout.toMillis());
            return;
        }
        String workerId = delivery.subject().substring(Subjects.HEARTBEAT_ROOT.length() + 1);
        WorkerHeartbeat heartbeat;
        try {
            heartbeat = mapper.readValue(delivery.data(), WorkerHeartbeat.class);
        } catch (IOException e) {
            parker.park(delivery, "coordinator:" + coordinatorId, ParkReason.UNDECODABLE, e);
            return;
        }
        boolean applied = sink.apply(workerId, heartbeat, age);
        delivery.ack();
        if (applied) {
            metrics.heartbeatApplied();
        } else {
            metrics.heartbeatUnknown();
        }
    }
}
