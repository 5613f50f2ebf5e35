package io.varpulis.observation;

import io.nats.client.impl.Headers;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The trace context a message carries in its NATS headers, as Spring Boot's propagation
 * writes it: W3C ({@code traceparent}, {@code tracestate}, {@code baggage}) or B3 (the
 * single {@code b3} header, or the {@code X-B3-*} ones). Read without a tracer, to know
 * before any span is made whether the trace is sampled: an unsampled delivery then pays
 * no tracing (SPEC section 14, issue 32), and its outputs carry its context through
 * unchanged. Pure.
 */
public final class TraceHeaders {

    /** Every header a propagation may write, W3C and B3. */
    static final List<String> NAMES = List.of("traceparent", "tracestate", "baggage", "b3", "X-B3-TraceId",
            "X-B3-SpanId", "X-B3-ParentSpanId", "X-B3-Sampled", "X-B3-Flags");

    private TraceHeaders() {
    }

    /**
     * @param headers a message's headers, or {@code null}
     * @return whether its trace is sampled: {@code true} or {@code false} when a header
     * says so, {@code null} when none does (no context: a root, whose sampling the tracer
     * decides; or a B3 context that defers the decision)
     */
    public static Boolean sampled(Headers headers) {
        return headers == null || headers.isEmpty() ? null : sampled(headers::getFirst);
    }

    /**
     * @param headers the trace headers a propagation wrote on an outbound message
     * @return whether they say the trace is sampled, as {@link #sampled(Headers)}
     */
    public static Boolean sampled(Map<String, String> headers) {
        return headers.isEmpty() ? null : sampled(headers::get);
    }

    private static Boolean sampled(Function<String, String> header) {
        String traceparent = header.apply("traceparent");
        if (traceparent != null) {
            return w3cSampled(traceparent.trim());
        }
        String b3 = header.apply("b3");
        if (b3 != null) {
            return b3Sampled(b3.trim());
        }
        if ("1".equals(header.apply("X-B3-Flags"))) {
            return true;
        }
        String sampled = header.apply("X-B3-Sampled");
        if (sampled == null) {
            return null;
        }
        return "1".equals(sampled.trim()) || "true".equalsIgnoreCase(sampled.trim());
    }

    /**
     * @param headers a message's headers, or {@code null}
     * @return whether it carries no trace context at all: no header a propagation writes
     * (a B3 context that defers its sampling decision is a context)
     */
    public static boolean absent(Headers headers) {
        if (headers == null || headers.isEmpty()) {
            return true;
        }
        for (String name : NAMES) {
            if (headers.getFirst(name) != null) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param headers a message's headers, or {@code null}
     * @return its trace headers, in the order of {@link #NAMES}, to be written unchanged
     * on what it causes
     */
    public static Map<String, String> of(Headers headers) {
        if (headers == null || headers.isEmpty()) {
            return Map.of();
        }
        Map<String, String> found = new LinkedHashMap<>(4);
        for (String name : NAMES) {
            String value = headers.getFirst(name);
            if (value != null) {
                found.put(name, value);
            }
        }
        return found;
    }

    /**
     * {@code 00-{32 hex}-{16 hex}-{2 hex flags}}: the sampled bit of the flags;
     * {@code null} when malformed.
     */
    private static Boolean w3cSampled(String traceparent) {
        if (traceparent.length() < 55 || traceparent.charAt(traceparent.length() - 3) != '-') {
            return null;
        }
        int flags = Character.digit(traceparent.charAt(traceparent.length() - 1), 16);
        return flags < 0 ? null : (flags & 1) == 1;
    }

    /**
     * {@code {trace id}-{span id}[-{1|0|d}[-{parent}]]}, or a lone {@code 0}, {@code 1}
     * or {@code d}.
     */
    private static Boolean b3Sampled(String b3) {
        String[] parts = b3.split("-", 4);
        String flag = parts.length == 1 ? parts[0] : parts.length >= 3 ? parts[2] : null;
        if (flag == null) {
            return null;
        }
        return switch (flag) {
            case "1", "d" -> true;
            case "0" -> false;
            default -> null;
        };
    }

}
