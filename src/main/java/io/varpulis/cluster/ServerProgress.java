package io.varpulis.cluster;

import io.nats.client.JetStreamManagement;
import io.nats.client.api.ConsumerInfo;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.PipelineUnit;
import io.varpulis.pipeline.RouteEdge;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a JetStream server shows of a worker's activity, for {@link LateWorkers}: the revision of its worker-id lease
 * ({@link WorkerIdLease}, renewed with every heartbeat it sends, stored or not) and, for the pipelines placed on it,
 * their durable consumers' ack floor, delivered sequence and ack-pending count (they move while it applies events).
 * All of it is the server's own bookkeeping, read from the stream and consumer leaders; no clock is compared.
 */
public final class ServerProgress implements LateWorkers.Evidence {

    /** Consumers read per worker and check, at most: enough to see progress, bounded for a worker with many. */
    static final int MAX_CONSUMERS = 8;

    private static final Logger log = LoggerFactory.getLogger(ServerProgress.class);

    private final JetStreamManagement jsm;
    private final ClusterState state;

    /**
     * @param jsm   JetStream management with a short request timeout (each read is one round-trip)
     * @param state where the worker's pipelines are placed
     */
    public ServerProgress(JetStreamManagement jsm, ClusterState state) {
        this.jsm = jsm;
        this.state = state;
    }

    @Override
    public Optional<String> of(String workerId) {
        List<String> parts = new ArrayList<>();
        try {
            parts.add("lease revision " + jsm.getLastMessage("KV_" + WorkerIdLease.BUCKET,
                    "$KV." + WorkerIdLease.BUCKET + "." + workerId).getSeq());
        } catch (Exception e) {
            log.debug("worker id lease of {} not read: {}", workerId, e.toString());
        }
        for (String durable : durablesOf(workerId)) {
            try {
                ConsumerInfo info = jsm.getConsumerInfo(VarpulisJetStream.ROUTING_STREAM, durable);
                parts.add(durable + " ack floor " + info.getAckFloor().getStreamSequence() + ", delivered "
                        + info.getDelivered().getStreamSequence() + ", ack pending " + info.getNumAckPending());
            } catch (Exception e) {
                log.debug("consumer {} not read: {}", durable, e.toString());
            }
        }
        return parts.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", parts));
    }

    /** The durables of the route edges into the units placed on the worker, at most {@link #MAX_CONSUMERS}. */
    private List<String> durablesOf(String workerId) {
        List<String> durables = new ArrayList<>();
        for (String key : state.pipelinesOf(workerId)) {
            PipelineUnit unit = PipelineUnit.parse(key);
            Optional<PipelineGroupSpec> group = state.group(unit.group());
            if (group.isEmpty()) {
                continue;
            }
            for (RouteEdge edge : group.get().inputEdges(unit.pipeline())) {
                RouteEdge into = unit.partitionOrNull() == null ? edge : edge.partition(unit.partitionOrNull());
                durables.add(DurableNames.routeConsumer(into.to(), into.subject()));
                if (durables.size() == MAX_CONSUMERS) {
                    return durables;
                }
            }
        }
        return durables;
    }
}
