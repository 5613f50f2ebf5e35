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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a JetStream server shows of a worker's activity, for {@link LateWorkers}: the revision of its worker-id lease
 * ({@link WorkerIdLease}, renewed with every heartbeat it sends, stored or not) and, for the pipelines placed on it,
 * their durable consumers' ack floors (they move up only when the worker acks what it applied). The delivered
 * sequence and ack-pending count are left out: the server moves them (redeliveries, ack waits) without the worker.
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

    /**
     * {@inheritDoc}
     * <p>Keys: {@code "lease revision"} (the worker-id lease's stream sequence) and {@code "<durable> ack floor"}
     * (a route consumer's ack floor stream sequence); a read that failed or timed out leaves its key out.
     */
    @Override
    public Map<String, Long> of(String workerId) {
        Map<String, Long> counters = new LinkedHashMap<>();
        try {
            counters.put("lease revision", jsm.getLastMessage("KV_" + WorkerIdLease.BUCKET,
                    "$KV." + WorkerIdLease.BUCKET + "." + workerId).getSeq());
        } catch (Exception e) {
            log.debug("worker id lease of {} not read: {}", workerId, e.toString());
        }
        for (String durable : durablesOf(workerId)) {
            try {
                ConsumerInfo info = jsm.getConsumerInfo(VarpulisJetStream.ROUTING_STREAM, durable);
                counters.put(durable + " ack floor", info.getAckFloor().getStreamSequence());
            } catch (Exception e) {
                log.debug("consumer {} not read: {}", durable, e.toString());
            }
        }
        return counters;
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
