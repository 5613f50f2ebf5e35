package io.varpulis.pipeline;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EventBatchTest {

    private final EventCodec codec = new EventCodec();

    @Test
    void aBatchTravelsAsOneEventWhoseEventsListKeepsEachEventsJson() {
        Event first = new Event("Tick", Instant.parse("2026-12-10T07:13:56Z"), Map.of("n", 1));
        Event batch = EventBatch.of("Ticks", List.of(first, Event.of("Tick", Map.of("n", 2))));

        String json = new String(codec.encode(batch), StandardCharsets.UTF_8);
        Event decoded = codec.decode(json.getBytes(StandardCharsets.UTF_8));

        assertThat(json).isEqualTo("{\"event_type\":\"Ticks\",\"fields\":{\"events\":[{\"event_type\":\"Tick\","
                + "\"timestamp\":\"2026-12-10T07:13:56Z\",\"fields\":{\"n\":1}},{\"event_type\":\"Tick\","
                + "\"fields\":{\"n\":2}}]}}");
        assertThat(EventBatch.isBatch(decoded)).isTrue();
        assertThat(EventBatch.elements(decoded)).extracting(EventBatch.Element::event)
            .containsExactly(first, Event.of("Tick", Map.of("n", 2)));
        assertThat(EventBatch.elements(batch)).extracting(EventBatch.Element::event)
            .as("the same before the wire")
            .containsExactly(first, Event.of("Tick", Map.of("n", 2)));
    }

    @Test
    void anElementThatIsNoEventIsNamedWithItsIndex_andParkedAsABatchOfItselfAlone() {
        Event decoded = codec.decode(("{\"event_type\":\"Ticks\",\"fields\":{\"events\":[7,{\"fields\":{}},"
                + "{\"event_type\":\"Tick\",\"fields\":[]},{\"event_type\":\"Tick\",\"timestamp\":\"yesterday\"},"
                + "{\"event_type\":\"Tick\",\"timestamp\":\"2026-12-10T08:13:56+01:00\"}]}}")
            .getBytes(StandardCharsets.UTF_8));

        List<EventBatch.Element> elements = EventBatch.elements(decoded);

        assertThat(elements).extracting(EventBatch.Element::error)
            .containsExactly("element 0 is not an event object: 7", "element 1 has no string event_type: {fields={}}",
                    "element 2's fields are not an object: {event_type=Tick, fields=[]}",
                    "element 3's timestamp is not RFC 3339: yesterday", null);
        assertThat(elements.get(4).event().timestamp()).isEqualTo(Instant.parse("2026-12-10T07:13:56Z"));
        assertThat(EventBatch.alone("Ticks", elements.get(0)))
            .isEqualTo(Event.of("Ticks", Map.of("events", List.of(7))));
        assertThat(EventBatch.alone("Ticks", elements.get(4))).isEqualTo(elements.get(4).event());
    }

    @Test
    void anElementsIdIsTheBatchsMessageIdAndItsIndex() {
        assertThat(EventBatch.elementId("run:lines:1-500", 3)).isEqualTo("run:lines:1-500#3");
    }

    @Test
    void anEmptyBatchIsRefused_andAnEventWithoutAListIsNoBatch() {
        assertThatThrownBy(() -> EventBatch.of("Ticks", List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThat(EventBatch.isBatch(Event.of("Ticks", Map.of("events", "x")))).isFalse();
        assertThat(EventBatch.elements(Event.of("Ticks", Map.of()))).isEmpty();
    }

}
