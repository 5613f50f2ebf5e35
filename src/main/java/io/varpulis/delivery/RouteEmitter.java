package io.varpulis.delivery;

import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.pipeline.Partitioning;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.pipeline.UnprocessableEventException;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishException;
import io.varpulis.transport.PublishReceipt;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Publishes a pipeline's outputs on every outgoing route whose pattern matches the event type, with a deterministic
 * {@code Nats-Msg-Id} of {@code {input message id}/{group}/{to}/{index}}: an output re-emitted after a redelivery of
 * its input is stored once by the stream's duplicate window, and two groups never share an id (the window covers the
 * whole routing stream). {@code varpulis.events.published{edge}} counts each output the stream stored once, including
 * one whose PubAck came after the publish timeout.
 * <p>An output for a partitioned pipeline (SPEC section 11) goes to the partition its key picks, on
 * {@code varpulis.cluster.pipeline.{group}.{from}.{to}.{partition}}; one without a text key goes to the unpartitioned
 * subject {@code ...{from}.{to}}, where the pipeline's repartitioner parks it ({@code unprocessable}): the emitter
 * never drops an output, and the park carries the stored message like any other.
 * <p>A route with {@code payload_shape: flat} gets the flat shape ({@link EventCodec#encodeFlat}), for a Rust
 * Varpulis consumer (SPEC section 17).
 */
public class RouteEmitter implements OutputEmitter {

    private final String group;
    private final List<PipelineGroupSpec.RouteSpec> routes;
    private final Map<String, Partitioning> partitioned;
    private final ClusterTransport transport;
    private final EventCodec codec;
    private final SubstrateMetrics metrics;

    /**
     * An emitter into unpartitioned pipelines only.
     *
     * @param group     the pipeline group
     * @param routes    the routes out of the emitting pipeline
     * @param transport publishes
     * @param codec     encodes events
     * @param metrics   counts {@code varpulis.events.published{edge}} (stored, duplicates not counted again)
     */
    public RouteEmitter(String group, List<PipelineGroupSpec.RouteSpec> routes, ClusterTransport transport,
                        EventCodec codec, SubstrateMetrics metrics) {
        this(group, routes, Map.of(), transport, codec, metrics);
    }

    /**
     * @param group       the pipeline group
     * @param routes      the routes out of the emitting pipeline
     * @param partitioned the partitioning of each partitioned receiving pipeline, by name
     * @param transport   publishes
     * @param codec       encodes events
     * @param metrics     counts {@code varpulis.events.published{edge}} (stored, duplicates not counted again)
     */
    public RouteEmitter(String group, List<PipelineGroupSpec.RouteSpec> routes, Map<String, Partitioning> partitioned,
                        ClusterTransport transport, EventCodec codec, SubstrateMetrics metrics) {
        this.group = group;
        this.routes = List.copyOf(routes);
        this.partitioned = Map.copyOf(partitioned);
        this.transport = transport;
        this.codec = codec;
        this.metrics = metrics;
    }

    /**
     * An emitter along some routes of a group, into its partitioned pipelines' partitions.
     *
     * @param group     the validated group
     * @param routes    the routes to emit on (those out of one pipeline, or out of {@code _external})
     * @param transport publishes
     * @param codec     encodes events
     * @param metrics   counts published events
     * @return the emitter
     */
    public static RouteEmitter of(PipelineGroupSpec group, List<PipelineGroupSpec.RouteSpec> routes,
                                  ClusterTransport transport, EventCodec codec, SubstrateMetrics metrics) {
        Map<String, Partitioning> partitioned = new LinkedHashMap<>();
        group.pipelines().forEach(p -> p.partitioning().ifPresent(how -> partitioned.put(p.name(), how)));
        return new RouteEmitter(group.name(), routes, partitioned, transport, codec, metrics);
    }

    /**
     * @param idSeed the seed: the input's message id, or {@code inject:{id}} for an injection
     * @param group  the pipeline group
     * @param to     the receiving pipeline
     * @param index  the output's index among the input's outputs
     * @return the output's {@code Nats-Msg-Id} on that route, {@code {seed}/{group}/{to}/{index}}
     */
    public static String messageId(String idSeed, String group, String to, int index) {
        return idSeed + "/" + group + "/" + to + "/" + index;
    }

    @Override
    public CompletableFuture<Void> emit(List<Event> outputs, Delivery input) {
        return emit(outputs, input.messageId());
    }

    /**
     * Publishes events on the matching routes.
     *
     * @param outputs the events
     * @param idSeed  the seed of their {@code Nats-Msg-Id}s, {@code {seed}/{group}/{to}/{index}}
     * @return completes when every publish is confirmed
     */
    public CompletableFuture<Void> emit(List<Event> outputs, String idSeed) {
        if (outputs.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        List<CompletableFuture<?>> confirmations = new ArrayList<>();
        for (int i = 0; i < outputs.size(); i++) {
            Event output = outputs.get(i);
            byte[] payload = codec.encode(output);
            for (PipelineGroupSpec.RouteSpec route : routes) {
                if (!route.matches(output.eventType())) {
                    continue;
                }
                RouteEdge edge = edge(route, output);
                String id = messageId(idSeed, group, route.toPipeline(), i);
                byte[] shaped = route.isFlat() ? codec.encodeFlat(output) : payload;
                confirmations.add(transport.publish(new OutboundMessage(edge.subject(), shaped, id))
                        .whenComplete((receipt, error) -> count(edge, receipt, error)));
            }
        }
        return CompletableFuture.allOf(confirmations.toArray(CompletableFuture[]::new));
    }

    /** The partition's edge for a partitioned pipeline; the unpartitioned one otherwise, or without a text key. */
    private RouteEdge edge(PipelineGroupSpec.RouteSpec route, Event output) {
        RouteEdge edge = new RouteEdge(group, route.fromPipeline(), route.toPipeline());
        Partitioning partitioning = partitioned.get(route.toPipeline());
        if (partitioning == null) {
            return edge;
        }
        try {
            return edge.partition(partitioning.partitionOf(output));
        } catch (UnprocessableEventException e) {
            return edge;
        }
    }

    /**
     * Counts what the stream stored once: a duplicate receipt is a copy stored earlier (a redelivered input emitting
     * again, a publish tried again), and a publish that timed out is counted when its late PubAck comes.
     */
    private void count(RouteEdge edge, PublishReceipt receipt, Throwable error) {
        if (error == null) {
            if (!receipt.duplicate()) {
                metrics.published(edge.name());
            }
            return;
        }
        PublishException.find(error).ifPresent(failed -> failed.late().thenAccept(late -> {
            if (!late.duplicate()) {
                metrics.published(edge.name());
            }
        }));
    }
}
