package io.varpulis.dlq;

import io.nats.client.impl.Headers;
import io.varpulis.observation.ObservedClusterTransport;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The trace a parked event keeps (SPEC section 14): the park of an observed delivery is
 * published with that delivery's trace headers ({@code traceparent}, or {@code b3} under
 * B3 propagation), which the console shows in the envelope and hands to a replay, whose
 * send then names the parked trace. No tracing library is needed here: these are the
 * headers as stored.
 */
final class ParkedTrace {

    /** The trace headers shown, W3C's and B3's single header. */
    private static final String[] TRACE_HEADERS = { "traceparent", "b3" };

    private ParkedTrace() {
    }

    /**
     * @param envelope the envelope's fields as the console shows them
     * @param headers the DLQ message's headers, or {@code null}
     * @return the fields with the message's trace header added
     * ({@code "traceparent": "00-..."}), or as they were
     */
    static Map<String, Object> shown(Map<String, Object> envelope, Headers headers) {
        if (headers == null) {
            return envelope;
        }
        Map<String, Object> fields = envelope;
        for (String name : TRACE_HEADERS) {
            String value = headers.getFirst(name);
            if (value != null && !fields.containsKey(name)) {
                fields = new LinkedHashMap<>(fields);
                fields.put(name, value);
            }
        }
        return fields;
    }

    /**
     * @param event a parked event
     * @return the header that names its trace on the replay, or none when it kept no
     * trace
     */
    static Map<String, String> replayHeaders(ParkedEvent event) {
        if (event.envelope() != null) {
            for (String name : TRACE_HEADERS) {
                if (event.envelope().get(name) instanceof String value) {
                    return Map.of(ObservedClusterTransport.PARKED_TRACEPARENT_HEADER, value);
                }
            }
        }
        return Map.of();
    }

}
