package io.varpulis.delivery;

import io.varpulis.dlq.DeadLetterParker;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.nats.Subjects;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.ClusterTransports;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishReceipt;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;

/**
 * The one way an outside event enters a pipeline group (SPEC section 18): the operator
 * API's inject, the worker's {@code inject} command. The event is encoded with the
 * {@link EventCodec}, published along the routes out of {@code _external} with the
 * {@link RouteEmitter} (into the partition its key picks for a partitioned pipeline, SPEC
 * section 11), each message with the {@code Nats-Msg-Id} {@code inject:{injection
 * id}/{group}/{to}/k:injected}: an injection retried with the same id within the routing
 * stream's 2-minute duplicate window is stored once.
 */
public class EventInjector {

    /**
     * What an injection's id is prefixed with to seed its events' {@code Nats-Msg-Id}s.
     */
    public static final String SEED = "inject:";

    /** The longest injection id: it goes into every event's {@code Nats-Msg-Id}. */
    public static final int MAX_ID_LENGTH = 128;

    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{1," + MAX_ID_LENGTH + "}");

    /**
     * The output key of an injected event: one event per injection, so its id is the
     * injection's.
     */
    private static final List<String> KEY = List.of("injected");

    private final ClusterTransport transport;

    private final EventCodec codec;

    private final SubstrateMetrics metrics;

    /**
     * @param transport publishes
     * @param codec encodes the event
     * @param metrics counts {@code varpulis.events.published{edge}}
     */
    public EventInjector(ClusterTransport transport, EventCodec codec, SubstrateMetrics metrics) {
        this.transport = transport;
        this.codec = codec;
        this.metrics = metrics;
    }

    /**
     * @return a new injection id, for a request that names none (a retry of it is then
     * stored again)
     */
    public static String newId() {
        return UUID.randomUUID().toString();
    }

    /**
     * @param id an injection id a caller gave ({@code ?id=}, the command's {@code id})
     * @return the id
     * @throws IllegalArgumentException when it is not 1 to {@value #MAX_ID_LENGTH}
     * letters, digits, {@code . _ : -}
     */
    public static String checkedId(String id) {
        if (!ID.matcher(id).matches()) {
            throw new IllegalArgumentException("an injection id (?id=, or the inject command's id) must be 1 to "
                    + MAX_ID_LENGTH + " letters, digits, '.', '_', ':' or '-'; got '"
                    + (id.length() > 40 ? id.substring(0, 40) + "..." : id) + "'");
        }
        return id;
    }

    /**
     * @param group the group
     * @param event the event
     * @return the routes out of {@code _external} that carry the event's type (empty: it
     * has nowhere to go)
     */
    public List<PipelineGroupSpec.RouteSpec> entries(PipelineGroupSpec group, Event event) {
        return group.outputRoutes(Subjects.EXTERNAL).stream().filter(r -> r.matches(event.eventType())).toList();
    }

    /**
     * Injects an event at a group's {@code _external} entries.
     * @param group the validated group
     * @param entries its routes to publish along ({@link #entries})
     * @param event the event
     * @param injectionId the injection's id
     * @return the receipts, one per route; exceptionally when one was not confirmed
     */
    public CompletableFuture<List<PublishReceipt>> inject(PipelineGroupSpec group,
            List<PipelineGroupSpec.RouteSpec> entries, Event event, String injectionId) {
        return RouteEmitter.of(group, entries, transport, codec, metrics)
            .receipts(List.of(event), KEY, SEED + injectionId);
    }

    /**
     * Injects an event into one pipeline (the {@code inject} command, {@code pipeline_id}
     * {@code {group}/{pipeline}}, SPEC section 6), on its edge from {@code _external}.
     * @param group the group's name
     * @param pipeline the pipeline's name
     * @param spec the group when this node knows it (a partitioned pipeline then gets the
     * partition its key picks), else empty: the unpartitioned subject, which a
     * partitioned pipeline partitions
     * @param event the event
     * @param injectionId the injection's id
     * @return the receipt; exceptionally when it was not confirmed
     */
    public CompletableFuture<PublishReceipt> injectInto(String group, String pipeline, Optional<PipelineGroupSpec> spec,
            Event event, String injectionId) {
        List<PipelineGroupSpec.RouteSpec> route = List
            .of(new PipelineGroupSpec.RouteSpec(Subjects.EXTERNAL, pipeline, null));
        RouteEmitter emitter = spec.map(known -> RouteEmitter.of(known, route, transport, codec, metrics))
            .orElseGet(() -> new RouteEmitter(group, route, Map.of(), transport, codec, metrics));
        return emitter.receipts(List.of(event), KEY, SEED + injectionId).thenApply(receipts -> receipts.get(0));
    }

    /**
     * Why an event can never be stored, or never parked with what a replay needs, or
     * {@code null} when it can: its largest message (the JSON and, on JetStream, the
     * {@code Nats-Msg-Id} of the longest route) over the server's {@code max_payload}, or
     * within {@link DeadLetterParker#RAW_FORM_HEADER_RESERVE} of it.
     * @param group the group's name
     * @param entries the routes it goes along
     * @param event the event
     * @param injectionId the injection's id
     * @return the reason, for a 413, or {@code null}
     */
    public String neverStored(String group, List<PipelineGroupSpec.RouteSpec> entries, Event event,
            String injectionId) {
        long server = transport.maxPayload();
        byte[] payload = codec.encode(event);
        long largest = 0;
        for (PipelineGroupSpec.RouteSpec route : entries) {
            String messageId = RouteEmitter.messageId(SEED + injectionId, group, route.toPipeline(),
                    RouteEmitter.keyId(KEY.get(0)));
            largest = Math.max(largest, ClusterTransports.payloadSize(transport.substrate(), new OutboundMessage(
                    Subjects.route(group, Subjects.EXTERNAL, route.toPipeline()), payload, messageId)));
        }
        if (server <= 0 || largest <= server - DeadLetterParker.RAW_FORM_HEADER_RESERVE) {
            return null;
        }
        String size = "the event is " + payload.length + " bytes"
                + (largest > payload.length ? " (" + largest + " with its Nats-Msg-Id header)" : "");
        if (largest > server) {
            return size + ", more than the NATS server's max_payload " + server + " bytes: it can never be stored; "
                    + "send a smaller event or raise the server's max_payload";
        }
        return size + ", within " + (server - largest) + " bytes of the NATS server's max_payload " + server
                + " bytes: at least " + DeadLetterParker.RAW_FORM_HEADER_RESERVE + " must stay free for the headers "
                + "of its death envelope, should it ever be parked (nothing is stranded in the DLQ for its size); "
                + "send a smaller event or raise the server's max_payload";
    }

}
