package io.varpulis.observation;

import brave.handler.MutableSpan;
import io.micrometer.observation.Observation;
import io.varpulis.test.InMemoryTracing;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link MicrometerTraces} on a real Brave tracer: an observation's trace id, and a span
 * linked to the context a W3C or B3 header names (Brave records the link as
 * {@code links[0].*} tags), the child of the current span if any.
 */
class MicrometerTracesTest {

    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";

    private static final String SPAN_ID = "00f067aa0ba902b7";

    private final InMemoryTracing tracing = new InMemoryTracing();

    private final MicrometerTraces traces = new MicrometerTraces(tracing.tracer());

    @AfterEach
    void close() {
        tracing.close();
    }

    @Test
    void anObservationsTraceIdIsItsSpans() {
        Observation observation = Observation.start("work", tracing.registry());
        String traceId = traces.traceId(observation);
        observation.stop();
        assertThat(traceId).isEqualTo(tracing.named("work").get(0).traceId()).hasSize(32);
        assertThat(Traces.NONE.traceId(observation)).isNull();
    }

    @Test
    void aB3HeaderIsLinkedToo_andWithoutACurrentSpanTheLinkedSpanStartsATraceOfItsOwn() {
        traces.startLinked("linked-b3", TRACE_ID + "-" + SPAN_ID + "-1", Map.of()).end(null);

        MutableSpan b3 = tracing.named("linked-b3").get(0);
        assertThat(b3.tags()).containsEntry("links[0].traceId", TRACE_ID).containsEntry("links[0].spanId", SPAN_ID);
        assertThat(b3.traceId()).isNotEqualTo(TRACE_ID);
        assertThat(b3.parentId()).isNull();
    }

    @Test
    void aW3cHeaderIsLinked_andTheLinkedSpanIsTheChildOfTheCurrentSpan() {
        Observation request = Observation.start("request", tracing.registry());
        Traces.LinkedSpan linked;
        try (Observation.Scope scope = request.openScope()) {
            linked = traces.startLinked("linked", "00-" + TRACE_ID + "-" + SPAN_ID + "-01", Map.of("k", "v"));
            linked.closeScope();
        }
        linked.end(null);
        request.stop();
        MutableSpan span = tracing.named("linked").get(0);
        MutableSpan parent = tracing.named("request").get(0);
        assertThat(span.parentId()).isEqualTo(parent.id());
        assertThat(span.tags()).containsEntry("links[0].traceId", TRACE_ID)
            .containsEntry("links[0].spanId", SPAN_ID)
            .containsEntry("k", "v");
    }

    @Test
    void aHeaderThatNamesNoContextStartsNothing() {
        assertThat(traces.startLinked("linked", "not a traceparent", Map.of())).isSameAs(Traces.LinkedSpan.NONE);
        assertThat(traces.startLinked("linked", null, Map.of())).isSameAs(Traces.LinkedSpan.NONE);
    }

}
