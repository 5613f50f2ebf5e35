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
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The coordinator's side of the heartbeat path: consumes every worker's heartbeats with its durable
 * {@code hb_{coordinator id}}, so heartbeats published while the coordinator was down reach it when it is back
 * (JetStream). A heartbeat whose stream timestamp is older than heartbeat-timeout is acked and discarded, never
 * applied: replayed after a restart, it would mark a dead worker alive (ADR-007).
 * <p>An undecodable heartbeat is parked under unit {@code coordinator:{id}}.
 */
public class HeartbeatListener implements DeliveryHandler {

    private static final Logger log = LoggerFactory.getLogger(HeartbeatListener.class);

    private final String coordinatorId;
    private final Duration heartbeatTimeout;
    private final Clock clock;
    private final ObjectMapper mapper;
    private final HeartbeatSink sink;
    private final SubstrateMetrics metrics;
    private final DeadLetterParker parker;

    /**
     * @param coordinatorId    the coordinator's stable id (names the durable)
     * @param heartbeatTimeout heartbeats older than this are stale
     * @param clock            measures a heartbeat's age against its stream timestamp
     * @param mapper           reads the heartbeat JSON
     * @param sink             applies a fresh heartbeat
     * @param metrics          counts applied and stale heartbeats
     * @param parker           parks undecodable heartbeats
     */
    public HeartbeatListener(String coordinatorId, Duration heartbeatTimeout, Clock clock, ObjectMapper mapper,
                             HeartbeatSink sink, SubstrateMetrics metrics,
                             DeadLetterParker parker) {
        this.coordinatorId = coordinatorId;
        this.heartbeatTimeout = heartbeatTimeout;
        this.clock = clock;
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
         * @param sentAt    when it was stored (JetStream) or received (core): the worker was alive then, which after a
         *                  coordinator restart can be well before now
         * @return whether it was applied: {@code false} for a worker not registered here, or of another cluster
         *         (counted by {@code varpulis.heartbeats.unknown}, not {@code varpulis.heartbeats.applied})
         */
        boolean apply(String workerId, WorkerHeartbeat heartbeat, Instant sentAt);
    }

    @Override
    public void onDelivery(Delivery delivery) {
        Optional<Duration> age = delivery.age(clock);
        if (age.isPresent() && age.get().compareTo(heartbeatTimeout) > 0) {
            delivery.ack();
            metrics.heartbeatStale();
            log.debug("discarded a stale heartbeat on {} ({} ms old, timeout {} ms)", delivery.subject(),
                    age.get().toMillis(), heartbeatTimeout.toMillis());
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
        boolean applied = sink.apply(workerId, heartbeat, delivery.storedAt().orElseGet(clock::instant));
        delivery.ack();
        if (applied) {
            metrics.heartbeatApplied();
        } else {
            metrics.heartbeatUnknown();
        }
    }
}
