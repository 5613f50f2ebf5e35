package io.varpulis.pipeline;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Several events carried in one routed message, so that a high-rate source pays the
 * per-message cost (store, deliver, PubAck, ack) once per batch instead of once per
 * event. A batch is an ordinary event (SPEC section 6) whose field {@value #EVENTS} lists
 * the events, each in the routed event's own JSON: <pre>
 * {"event_type": "SshLogLines", "fields": {"events": [
 *     {"event_type": "SshLogLine", "fields": {"line": "Dec 10 06:55:46 LabSZ sshd[24200]: ...", "line_number": 1}},
 *     {"event_type": "SshLogLine", "fields": {"line": "...", "line_number": 2}}]}}
 * </pre> The substrate routes, stores, acks and redelivers a batch as one message: a
 * processor that accepts one applies its elements in order, in one apply, and parks an
 * element it cannot apply on its own with {@link ProcessingContext#park} (the rest of the
 * batch is applied, and the input acked once the parks and outputs are confirmed). A
 * processor keying idempotent updates by message id keys an element by
 * {@link #elementId(String, int)}.
 * <p>
 * A batch is not partitioned by its elements' keys: a partitioned pipeline (SPEC section
 * 11) needs one event per message, and parks a batch (it has no key field) as
 * {@code unprocessable}.
 */
public final class EventBatch {

    /** The field that lists a batch's events (a JSON array of events). */
    public static final String EVENTS = "events";

    private EventBatch() {
    }

    /**
     * Makes a batch.
     * @param batchType the batch's event type (for example {@code SshLogLines})
     * @param events its events, in order; at least one
     * @return the batch event, without a timestamp
     * @throws IllegalArgumentException when {@code events} is empty
     */
    public static Event of(String batchType, List<Event> events) {
        if (events.isEmpty()) {
            throw new IllegalArgumentException("a batch needs at least one event");
        }
        return Event.of(batchType, Map.of(EVENTS, List.copyOf(events)));
    }

    /**
     * Whether an event is a batch: it has a list in {@value #EVENTS}.
     * @param event an event
     * @return {@code true} when {@code fields.events} is a JSON array
     */
    public static boolean isBatch(Event event) {
        return event.fields().get(EVENTS) instanceof List<?>;
    }

    /**
     * Reads a batch's elements.
     * @param batch a batch event
     * @return its elements in order, each an event or, for an element that is not an
     * event's JSON (no {@code event_type}, fields not an object, a bad timestamp), the
     * reason; empty when {@value #EVENTS} is absent or not a list
     */
    public static List<Element> elements(Event batch) {
        if (!(batch.fields().get(EVENTS) instanceof List<?> list)) {
            return List.of();
        }
        List<Element> elements = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            elements.add(element(i, list.get(i)));
        }
        return Collections.unmodifiableList(elements);
    }

    /**
     * The id of one element, for idempotent updates keyed by message id: {@code {message
     * id}#{index}}. Stable across redeliveries as long as the batch's message id is.
     * @param messageId the batch's message id ({@link ProcessingContext#messageId()})
     * @param index the element's index, from 0
     * @return the element's id
     */
    public static String elementId(String messageId, int index) {
        return messageId + "#" + index;
    }

    /**
     * What to park for an element: the element's event, or, for one that is not an event,
     * a batch of that element alone (as decoded, written again as JSON), so that the DLQ
     * keeps it and a replay gives it back to the same processor.
     * @param batchType the batch's event type
     * @param element the element
     * @return a batch of one
     */
    public static Event alone(String batchType, Element element) {
        return element.event() != null ? element.event()
                : Event.of(batchType, Map.of(EVENTS, Collections.singletonList(element.raw())));
    }

    private static Element element(int index, Object raw) {
        if (raw instanceof Event event) {
            return new Element(index, event, null, raw);
        }
        if (!(raw instanceof Map<?, ?> map)) {
            return new Element(index, null, "element " + index + " is not an event object: " + raw, raw);
        }
        if (!(map.get("event_type") instanceof String type) || type.isBlank()) {
            return new Element(index, null, "element " + index + " has no string event_type: " + raw, raw);
        }
        Object fields = map.get("fields");
        if (fields != null && !(fields instanceof Map<?, ?>)) {
            return new Element(index, null, "element " + index + "'s fields are not an object: " + raw, raw);
        }
        Instant timestamp = null;
        Object text = map.get("timestamp");
        if (text != null) {
            timestamp = text instanceof String s ? timestamp(s) : null;
            if (timestamp == null) {
                return new Element(index, null, "element " + index + "'s timestamp is not RFC 3339: " + text, raw);
            }
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> values = (Map<String, Object>) fields;
        // Not copied (issue 34: the copy was a twentieth of the ingress's time): the
        // element's fields are the batch's
        // own nested value, which the batch event already shares with whoever built it;
        // the event wraps them
        // read-only as it wraps a decoded event's.
        return new Element(index, Event.decoded(type, timestamp, values), null, raw);
    }

    private static Instant timestamp(String text) {
        Instant utc = EventTimestampDeserializer.parseUtc(text);
        if (utc != null) {
            return utc;
        }
        try {
            return OffsetDateTime.parse(text).toInstant();
        }
        catch (DateTimeParseException e) {
            return null;
        }
    }

    /**
     * One element of a batch.
     *
     * @param index its position, from 0
     * @param event the element as an event, {@code null} when it is not one
     * @param error why it is not an event, {@code null} when it is
     * @param raw the element as decoded from JSON (a map), or the event itself when the
     * batch was built in memory
     */
    public record Element(int index, Event event, String error, Object raw) {
    }

}
