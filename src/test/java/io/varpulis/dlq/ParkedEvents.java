package io.varpulis.dlq;

import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.transport.OutboundMessage;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;

/**
 * Parks death envelopes in {@code VARPULIS_DLQ} the way {@code DeadLetterParker} writes
 * them, with chosen units, subjects and payloads.
 */
public final class ParkedEvents {

    private final SubstrateFixture node;

    public ParkedEvents(SubstrateFixture node) {
        this.node = node;
    }

    /**
     * @return the DLQ sequence of an event of {@code unit} whose payload is a routed
     * event carrying {@code text}
     */
    public long park(String unit, String text) {
        return park(unit, new RouteEdge("ops", "_external", DurableNames.sanitize(unit)).subject(),
                payload(text).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * @return the DLQ sequence of an event of {@code unit} that came from
     * {@code originalSubject}
     */
    long park(String unit, String originalSubject, byte[] payload) {
        String text = new String(payload, StandardCharsets.UTF_8);
        boolean utf8 = Arrays.equals(text.getBytes(StandardCharsets.UTF_8), payload);
        DeathEnvelope envelope = new DeathEnvelope(originalSubject, unit, 5, Instant.now().getEpochSecond(), "boom",
                utf8 ? text : null, utf8 ? null : Base64.getEncoder().encodeToString(payload), "max_deliver",
                IllegalStateException.class.getName(), VarpulisJetStream.ROUTING_STREAM, 1L, null, null);
        try {
            return node.transport
                .publish(new OutboundMessage(DurableNames.dlqSubject(unit),
                        node.codec.mapper().writeValueAsBytes(envelope), null))
                .get()
                .sequence();
        }
        catch (Exception e) {
            throw new IllegalStateException("could not park a test envelope: " + e.getMessage(), e);
        }
    }

    /**
     * @return the JSON of a routed event carrying {@code text}
     */
    static String payload(String text) {
        return "{\"event_type\":\"Test\",\"fields\":{\"n\":\"" + text + "\"}}";
    }

}
