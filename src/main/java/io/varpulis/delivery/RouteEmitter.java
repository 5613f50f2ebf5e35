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

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Publishes a pipeline's outputs on every outgoing route whose pattern matches the event
 * type, with a {@code Nats-Msg-Id} derived from what the output is (SPEC section 9),
 * never from its position among the outputs: {@code {input message
 * id}/{group}/{to}/k:{key}} for an output the processor gave a key
 * ({@link io.varpulis.pipeline.ProcessingContext#keyed}), else {@code {input message
 * id}/{group}/{to}/h:{hash}}, the first 128 bits of the SHA-256 of its encoded bytes in
 * hex (with {@code .2}, {@code .3}, ... for the second and later outputs of one input
 * with the same bytes). An output re-emitted after a redelivery of its input is stored
 * once by the stream's duplicate window, a re-apply under other state can never reuse an
 * id for a different event, and two groups never share an id (the window covers the whole
 * routing stream). {@code varpulis.events.published{edge}} counts each output the stream
 * stored once, including one whose PubAck came after the publish timeout.
 * <p>
 * Before each publish it checks the pipeline's {@link OwnershipFence}: a pipeline
 * superseded or stopped on this worker publishes nothing more.
 * <p>
 * An output for a partitioned pipeline (SPEC section 11) goes to the partition its key
 * picks, on {@code varpulis.cluster.pipeline.{group}.{from}.{to}.{partition}}; one
 * without a text key goes to the unpartitioned subject {@code ...{from}.{to}}, where the
 * pipeline's repartitioner parks it ({@code unprocessable}): the emitter never drops an
 * output, and the park carries the stored message like any other.
 * <p>
 * A route with {@code payload_shape: flat} gets the flat shape
 * ({@link EventCodec#encodeFlat}), for a Rust Varpulis consumer (SPEC section 17).
 */
public class RouteEmitter implements OutputEmitter {

    private final String group;

    private final List<PipelineGroupSpec.RouteSpec> routes;

    private final Map<String, Partitioning> partitioned;

    private final ClusterTransport transport;

    private final EventCodec codec;

    private final SubstrateMetrics metrics;

    private final OwnershipFence fence;

    /** The SHA-256 digest of each publishing thread (a digest is not thread-safe). */
    private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        }
        catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256, which every Java platform must have", e);
        }
    });

    /**
     * @param group the pipeline group
     * @param routes the routes out of the emitting pipeline
     * @param partitioned the partitioning of each partitioned receiving pipeline, by name
     * @param transport publishes
     * @param codec encodes events
     * @param metrics counts {@code varpulis.events.published{edge}} (stored, duplicates
     * not counted again)
     */
    public RouteEmitter(String group, List<PipelineGroupSpec.RouteSpec> routes, Map<String, Partitioning> partitioned,
            ClusterTransport transport, EventCodec codec, SubstrateMetrics metrics) {
        this(group, routes, partitioned, transport, codec, metrics, OwnershipFence.NONE);
    }

    private RouteEmitter(String group, List<PipelineGroupSpec.RouteSpec> routes, Map<String, Partitioning> partitioned,
            ClusterTransport transport, EventCodec codec, SubstrateMetrics metrics, OwnershipFence fence) {
        this.fence = fence;
        this.group = group;
        this.routes = List.copyOf(routes);
        this.partitioned = Map.copyOf(partitioned);
        this.transport = transport;
        this.codec = codec;
        this.metrics = metrics;
    }

    /**
     * An emitter along some routes of a group, into its partitioned pipelines'
     * partitions.
     * @param group the validated group
     * @param routes the routes to emit on (those out of one pipeline, or out of
     * {@code _external})
     * @param transport publishes
     * @param codec encodes events
     * @param metrics counts published events
     * @return the emitter
     */
    public static RouteEmitter of(PipelineGroupSpec group, List<PipelineGroupSpec.RouteSpec> routes,
            ClusterTransport transport, EventCodec codec, SubstrateMetrics metrics) {
        Map<String, Partitioning> partitioned = new LinkedHashMap<>();
        group.pipelines().forEach(p -> p.partitioning().ifPresent(how -> partitioned.put(p.name(), how)));
        return new RouteEmitter(group.name(), routes, partitioned, transport, codec, metrics);
    }

    /**
     * @param fence the emitting pipeline's fence, checked before each publish
     * @return this emitter, publishing only while {@code fence} passes
     */
    public RouteEmitter fencedBy(OwnershipFence fence) {
        return new RouteEmitter(group, routes, partitioned, transport, codec, metrics, fence);
    }

    /**
     * @param idSeed the seed: the input's message id, or {@code inject:{id}} for an
     * injection
     * @param group the pipeline group
     * @param to the receiving pipeline
     * @param outputKey the output's identity on that input: {@code k:{key}} or
     * {@code h:{hash}} ({@link #keyId}, {@link #contentId})
     * @return the output's {@code Nats-Msg-Id} on that route,
     * {@code {seed}/{group}/{to}/{outputKey}}
     */
    public static String messageId(String idSeed, String group, String to, String outputKey) {
        return idSeed + "/" + group + "/" + to + "/" + outputKey;
    }

    /**
     * @param key an output key the processor gave
     * ({@link io.varpulis.pipeline.ProcessingContext#keyed})
     * @return the output's part of its message id, {@code k:{key}}
     */
    public static String keyId(String key) {
        return "k:" + key;
    }

    /**
     * @param payload an output's encoded bytes
     * @param occurrence 1 for the first output of its input with these bytes, 2 for the
     * second, ...
     * @return the output's part of its message id, {@code h:{32 hex digits}} and
     * {@code .{occurrence}} from the second on
     */
    public static String contentId(byte[] payload, int occurrence) {
        byte[] digest = SHA_256.get().digest(payload);
        String hash = "h:" + HexFormat.of().formatHex(digest, 0, 16);
        return occurrence == 1 ? hash : hash + "." + occurrence;
    }

    @Override
    public CompletableFuture<Void> emit(List<Event> outputs, Delivery input) {
        return emit(outputs, null, input.messageId());
    }

    @Override
    public CompletableFuture<Void> emit(List<Event> outputs, List<String> keys, Delivery input) {
        return emit(outputs, keys, input.messageId());
    }

    /**
     * Publishes events on the matching routes, while the emitter's fence passes.
     * @param outputs the events
     * @param keys their output keys in the same order ({@code null} entries for those
     * without), or {@code null}
     * @param idSeed the seed of their {@code Nats-Msg-Id}s,
     * {@code {seed}/{group}/{to}/{k:key or h:hash}}
     * @return completes when every publish is confirmed; exceptionally, with nothing more
     * published, when the fence fails
     * ({@link io.varpulis.pipeline.KeyValueState.StateFencedException} when superseded)
     */
    public CompletableFuture<Void> emit(List<Event> outputs, List<String> keys, String idSeed) {
        if (outputs.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        List<CompletableFuture<PublishReceipt>> confirmations = new ArrayList<>();
        publish(outputs, keys, idSeed, confirmations);
        return CompletableFuture.allOf(confirmations.toArray(CompletableFuture[]::new));
    }

    /**
     * Publishes events on the matching routes, as {@link #emit(List, List, String)}, and
     * gives their receipts.
     * @param outputs the events
     * @param keys their output keys, or {@code null}
     * @param idSeed the seed of their {@code Nats-Msg-Id}s
     * @return the receipts, one per route an event went on, once every publish is
     * confirmed; exceptionally as {@link #emit(List, List, String)}
     */
    public CompletableFuture<List<PublishReceipt>> receipts(List<Event> outputs, List<String> keys, String idSeed) {
        List<CompletableFuture<PublishReceipt>> confirmations = new ArrayList<>();
        publish(outputs, keys, idSeed, confirmations);
        return CompletableFuture.allOf(confirmations.toArray(CompletableFuture[]::new))
            .thenApply(done -> confirmations.stream().map(CompletableFuture::join).toList());
    }

    /**
     * Publishes each output on its matching routes, its confirmation added to
     * {@code confirmations}.
     */
    private void publish(List<Event> outputs, List<String> keys, String idSeed,
            List<CompletableFuture<PublishReceipt>> confirmations) {
        Map<String, Integer> sameBytes = null;
        for (int i = 0; i < outputs.size(); i++) {
            Event output = outputs.get(i);
            byte[] payload = codec.encode(output);
            String key = keys == null ? null : keys.get(i);
            String outputId;
            if (key != null) {
                outputId = keyId(key);
            }
            else {
                String hash = contentId(payload, 1);
                if (sameBytes == null) {
                    sameBytes = new HashMap<>();
                }
                int occurrence = sameBytes.merge(hash, 1, Integer::sum);
                outputId = occurrence == 1 ? hash : contentId(payload, occurrence);
            }
            for (PipelineGroupSpec.RouteSpec route : routes) {
                if (!route.matches(output.eventType())) {
                    continue;
                }
                try {
                    fence.check();
                }
                catch (RuntimeException e) {
                    confirmations.add(CompletableFuture.failedFuture(e));
                    return;
                }
                RouteEdge edge = edge(route, output);
                String id = messageId(idSeed, group, route.toPipeline(), outputId);
                byte[] shaped = route.isFlat() ? codec.encodeFlat(output) : payload;
                confirmations.add(transport.publish(new OutboundMessage(edge.subject(), shaped, id))
                    .whenComplete((receipt, error) -> count(edge, receipt, error)));
            }
        }
    }

    /**
     * The partition's edge for a partitioned pipeline; the unpartitioned one otherwise,
     * or without a text key.
     */
    private RouteEdge edge(PipelineGroupSpec.RouteSpec route, Event output) {
        RouteEdge edge = new RouteEdge(group, route.fromPipeline(), route.toPipeline());
        Partitioning partitioning = partitioned.get(route.toPipeline());
        if (partitioning == null) {
            return edge;
        }
        try {
            return edge.partition(partitioning.partitionOf(output));
        }
        catch (UnprocessableEventException e) {
            return edge;
        }
    }

    /**
     * Counts what the stream stored once: a duplicate receipt is a copy stored earlier (a
     * redelivered input emitting again, a publish tried again), and a publish that timed
     * out is counted when its late PubAck comes.
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
