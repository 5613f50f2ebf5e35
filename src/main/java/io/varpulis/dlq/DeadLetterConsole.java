package io.varpulis.dlq;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.PurgeOptions;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StreamInfoOptions;
import io.nats.client.api.StreamState;
import io.nats.client.api.Subject;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.JetStreamErrors;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.support.AuditLog;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishException;
import io.varpulis.transport.PublishReceipt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The dead-letter console over {@code VARPULIS_DLQ}: list, show, replay and purge parked
 * events with the JetStream management API. It reads the stream by sequence and never
 * consumes it: nothing leaves the DLQ unless an operator asks (ADR-007, no automatic DLQ
 * consumer).
 * <p>
 * Replay re-publishes an envelope's original payload to its {@code original_subject}
 * through the {@link ClusterTransport}, with a fresh {@code Nats-Msg-Id}
 * {@code replay:{dlq sequence}:{uuid}} (the original id may still sit in the routing
 * stream's duplicate window), waits for the PubAck, and only then deletes the parked
 * copy: a crash between the two replays an event twice, never loses it.
 * <p>
 * Replay and purge are refused unless {@code varpulis.dlq.write-enabled=true}; every
 * write, refused or done, logs one line in the node's audit log ({@link AuditLog}: who,
 * what, how many).
 * <p>
 * One class, longer than most: list, show, replay and purge read the same envelopes (both
 * forms, SPEC section 4) through the same paging budget, and the writes share one audit
 * and one set of sequences in work: a replay claims each sequence while it publishes it,
 * and a purge of a claimed sequence is refused rather than waiting for the replay's
 * publishes (no lock is held across a network wait, SPEC section 20).
 */
public class DeadLetterConsole {

    /** The subject filter of the whole DLQ. */
    static final String ALL_SUBJECTS = DurableNames.DLQ_ROOT + ".>";

    private static final Logger log = LoggerFactory.getLogger(DeadLetterConsole.class);

    private static final TypeReference<Map<String, Object>> JSON_OBJECT = new TypeReference<>() {
    };

    private static final String STREAM = VarpulisJetStream.DLQ_STREAM;

    /**
     * Largest backward step of a list walk. The walk reads forward inside each step, so a
     * step bounds the events read beyond the page; doubling up to it finds a unit with
     * few events among 100 000 in about 100 requests.
     */
    private static final int MAX_WINDOW = 1024;

    private final JetStreamManagement jsm;

    private final ClusterTransport transport;

    private final ObjectMapper mapper;

    private final ObjectReader envelopes;

    private final DeadLetterSettings settings;

    /** The sequences a replay or a purge works on now. */
    private final Set<Long> inWork = ConcurrentHashMap.newKeySet();

    /**
     * @param connection an open connection to a JetStream-enabled server
     * @param transport re-publishes replayed events (on JetStream, so the replay is
     * confirmed by a PubAck)
     * @param mapper reads death envelopes
     * @param settings page sizes, replay bounds, and whether writes are enabled
     * @throws IllegalStateException when the connection cannot open the JetStream
     * management API
     */
    public DeadLetterConsole(Connection connection, ClusterTransport transport, ObjectMapper mapper,
            DeadLetterSettings settings) {
        try {
            this.jsm = connection.jetStreamManagement();
        }
        catch (IOException e) {
            throw new IllegalStateException("cannot open the JetStream management API: " + e.getMessage(), e);
        }
        this.transport = transport;
        this.mapper = mapper;
        // Fields a newer parker adds must not make an envelope unreplayable.
        this.envelopes = mapper.readerFor(DeathEnvelope.class)
            .without(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        this.settings = settings;
    }

    /**
     * Lists parked events, newest first, in a page bounded twice: by count
     * ({@code limit}) and by bytes ({@code varpulis.dlq.max-page-bytes}, the events'
     * JSON); payloads longer than {@code varpulis.dlq.max-payload-shown} are cut
     * ({@code payload_truncated}) and {@link #show(long)} gives one whole. A page the
     * byte budget ended says so in its {@code note}; {@code next_before} leads on either
     * way.
     * @param query unit, time range, cursor and page size, all optional
     * @return one page; {@code next_before} leads to the next older one
     * @throws IllegalArgumentException when the limit is below 1 or above
     * {@code varpulis.dlq.max-page-size}
     * @throws DeadLetterUnavailableException when the JetStream API does not answer
     */
    public DeadLetterPage list(DeadLetterQuery query) {
        int limit = query.limit() == null ? settings.pageSize() : query.limit();
        if (limit < 1 || limit > settings.maxPageSize()) {
            throw new IllegalArgumentException("limit " + limit + " is out of range: give 1 to "
                    + settings.maxPageSize() + " (varpulis.dlq.max-page-size)");
        }
        String filter = query.unit() == null ? ALL_SUBJECTS : DurableNames.dlqSubject(query.unit());
        StreamState state = state(filter);
        long depth = query.unit() == null ? state.getMsgCount()
                : state.getSubjects()
                    .stream()
                    .filter(subject -> subject.getName().equals(filter))
                    .mapToLong(Subject::getCount)
                    .sum();
        long lo = state.getFirstSequence();
        long hi = state.getLastSequence();
        if (query.before() != null) {
            hi = Math.min(hi, query.before() - 1);
        }
        if (query.since() != null) {
            lo = firstPositionAtOrAfter(query.since(), lo, hi);
        }
        if (query.until() != null) {
            hi = firstPositionAtOrAfter(query.until(), lo, hi) - 1;
        }
        long budget = settings.maxPageBytes().toBytes();
        List<ParkedEvent> events = new ArrayList<>();
        long bytes = 0;
        boolean full = false;
        int window = limit;
        for (long top = hi; top >= lo && events.size() < limit && !full;) {
            long bottom = Math.max(lo, top - window + 1);
            Newest chunk = newest(bottom, top, filter, limit - events.size(), budget - bytes, events.isEmpty());
            events.addAll(chunk.events());
            bytes += chunk.bytes();
            full = chunk.full();
            top = bottom - 1;
            window = Math.min(window * 2, MAX_WINDOW);
        }
        Long nextBefore = null;
        if (!events.isEmpty()) {
            long oldest = events.get(events.size() - 1).sequence();
            boolean older = next(lo, filter).filter(m -> m.getSeq() < oldest).isPresent();
            nextBefore = older ? oldest : null;
        }
        String note = full && nextBefore != null ? "this page ended at varpulis.dlq.max-page-bytes (" + budget
                + " bytes) after " + events.size() + " event(s): pass before=" + nextBefore + " for the next one"
                : null;
        return new DeadLetterPage(events, depth, nextBefore, bytes, note);
    }

    /**
     * @param sequence a DLQ sequence given by a caller
     * @throws IllegalArgumentException when it is below 1, where stream sequences start:
     * the caller's mistake, not JetStream being away (which answers such a request "bad
     * request")
     */
    static void requireSequence(long sequence) {
        if (sequence < 1) {
            throw new IllegalArgumentException("DLQ sequence " + sequence + " is out of range: " + STREAM
                    + " sequences start at 1 (list the parked events for theirs)");
        }
    }

    /**
     * Shows one parked event with its whole death envelope.
     * @param sequence its {@code VARPULIS_DLQ} sequence
     * @return the event
     * @throws IllegalArgumentException when the sequence is below 1 (stream sequences
     * start at 1)
     * @throws ParkedEventNotFoundException when there is none at that sequence
     * @throws DeadLetterUnavailableException when the JetStream API does not answer
     */
    public ParkedEvent show(long sequence) {
        requireSequence(sequence);
        try {
            return parked(jsm.getMessage(STREAM, sequence));
        }
        catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == JetStreamErrors.NO_MESSAGE_FOUND) {
                throw new ParkedEventNotFoundException(sequence);
            }
            throw new DeadLetterUnavailableException("read " + STREAM + " sequence " + sequence, e);
        }
        catch (IOException e) {
            throw new DeadLetterUnavailableException("read " + STREAM + " sequence " + sequence, e);
        }
    }

    /**
     * Replays parked events, oldest first: re-publishes each original payload to its
     * original subject, waits for the PubAck, then deletes the parked copy. A unit or all
     * replay covers the events parked when it starts (an event parked again meanwhile
     * waits for the next request), at most {@code varpulis.dlq.max-replay-batch} of them,
     * and stops at the first publish that is not confirmed so that the events after it
     * stay parked in order.
     * @param request exactly one of sequence, unit, all
     * @param caller who asks, for the audit line
     * @return what was replayed and what failed
     * @throws DeadLetterWritesDisabledException when {@code varpulis.dlq.write-enabled}
     * is not {@code true}
     * @throws IllegalArgumentException when the request is not exactly one of sequence,
     * unit, all, or its sequence is below 1
     * @throws ParkedEventNotFoundException when a requested sequence holds no parked
     * event
     * @throws DeadLetterUnavailableException when the JetStream API does not answer
     */
    public ReplayReport replay(ReplayRequest request, Caller caller) {
        request.validate();
        String action = "replay " + request.describe();
        requireWritable(action, caller);
        ReplayRun run = new ReplayRun();
        if (request.sequence() != null) {
            run.replay(show(request.sequence()));
        }
        else {
            String filter = request.unit() != null ? DurableNames.dlqSubject(request.unit()) : ALL_SUBJECTS;
            StreamState state = state(filter);
            long last = state.getLastSequence();
            long position = state.getFirstSequence();
            while (run.stopped == null) {
                Optional<MessageInfo> message = next(position, filter).filter(m -> m.getSeq() <= last);
                if (message.isEmpty()) {
                    break;
                }
                if (run.count() == settings.maxReplayBatch()) {
                    run.more = true;
                    break;
                }
                run.replay(parked(message.get()));
                position = message.get().getSeq() + 1;
            }
        }
        ReplayReport report = new ReplayReport(run.replayed, run.failed, run.more, run.stopped);
        AuditLog.done(caller.describe(),
                "DLQ " + action + ": " + report.replayedCount() + " replayed, " + report.failedCount() + " failed"
                        + (run.more ? ", more left" : "") + (run.stopped == null ? "" : ", stopped: " + run.stopped));
        return report;
    }

    /**
     * Deletes one parked event without replaying it.
     * @param sequence its {@code VARPULIS_DLQ} sequence
     * @param caller who asks, for the audit line
     * @return {@code purged = 1}
     * @throws IllegalArgumentException when the sequence is below 1
     * @throws DeadLetterWritesDisabledException when {@code varpulis.dlq.write-enabled}
     * is not {@code true}
     * @throws ParkedEventNotFoundException when there is none at that sequence
     * @throws DeadLetterBusyException when a replay on this node is publishing it
     * @throws DeadLetterUnavailableException when the JetStream API does not answer
     */
    public PurgeReport purge(long sequence, Caller caller) {
        requireSequence(sequence);
        String target = "sequence " + sequence;
        requireWritable("purge " + target, caller);
        if (!inWork.add(sequence)) {
            throw new DeadLetterBusyException(sequence);
        }
        try {
            show(sequence);
            delete(sequence);
        }
        finally {
            inWork.remove(sequence);
        }
        AuditLog.done(caller.describe(), "DLQ purge " + target + ": 1 purged");
        return new PurgeReport(target, 1);
    }

    /**
     * Deletes every event parked for one unit, without replaying them.
     * @param unit the pipeline, or {@code coordinator:{id}}
     * @param caller who asks, for the audit line
     * @return how many were deleted
     * @throws DeadLetterWritesDisabledException when {@code varpulis.dlq.write-enabled}
     * is not {@code true}
     * @throws IllegalArgumentException when the unit is blank
     * @throws DeadLetterUnavailableException when the JetStream API does not answer
     */
    public PurgeReport purgeUnit(String unit, Caller caller) {
        if (unit == null || unit.isBlank()) {
            throw new IllegalArgumentException("give the unit to purge (a pipeline name, or coordinator:{id}); "
                    + "purging the whole DLQ is not offered");
        }
        String target = "unit " + unit;
        requireWritable("purge " + target, caller);
        String subject = DurableNames.dlqSubject(unit);
        try {
            long purged = jsm.purgeStream(STREAM, PurgeOptions.subject(subject)).getPurged();
            AuditLog.done(caller.describe(), "DLQ purge " + target + ": " + purged + " purged");
            return new PurgeReport(target, purged);
        }
        catch (IOException | JetStreamApiException e) {
            throw new DeadLetterUnavailableException("purge " + subject + " from " + STREAM, e);
        }
    }

    /**
     * @return {@code true} when replay and purge are enabled on this node
     */
    public boolean writeEnabled() {
        return settings.writeEnabled();
    }

    private void requireWritable(String action, Caller caller) {
        if (!settings.writeEnabled()) {
            AuditLog.refused(caller.describe(), "DLQ " + action + ": varpulis.dlq.write-enabled is false");
            throw new DeadLetterWritesDisabledException(action);
        }
    }

    /** The stream's state with the per-subject counts of the filter. */
    private StreamState state(String filter) {
        try {
            return jsm.getStreamInfo(STREAM, StreamInfoOptions.filterSubjects(filter)).getStreamState();
        }
        catch (IOException | JetStreamApiException e) {
            throw new DeadLetterUnavailableException("read the state of " + STREAM, e);
        }
    }

    /**
     * The newest parked events with sequences in [from, to] matching the filter, newest
     * first: at most {@code need} of them, and at most {@code room} bytes of JSON unless
     * {@code atLeastOne} (so that paging always moves on). Read forward, keeping only
     * what may be shown, so memory stays within the page's budget whatever the events'
     * size.
     */
    private Newest newest(long from, long to, String filter, int need, long room, boolean atLeastOne) {
        ArrayDeque<Sized> kept = new ArrayDeque<>();
        long bytes = 0;
        boolean full = false;
        for (long position = from; position <= to;) {
            Optional<MessageInfo> message = next(position, filter).filter(m -> m.getSeq() <= to);
            if (message.isEmpty()) {
                break;
            }
            ParkedEvent event = shown(parked(message.get()));
            Sized sized = new Sized(event, json(event));
            kept.addLast(sized);
            bytes += sized.bytes();
            while (kept.size() > need || bytes > room && kept.size() > (atLeastOne ? 1 : 0)) {
                full |= kept.size() <= need;
                bytes -= kept.pollFirst().bytes();
            }
            position = message.get().getSeq() + 1;
        }
        List<ParkedEvent> events = new ArrayList<>(kept.size());
        kept.descendingIterator().forEachRemaining(sized -> events.add(sized.event()));
        return new Newest(events, bytes, full);
    }

    /**
     * A page's event as a list shows it: a payload longer than max-payload-shown is cut.
     */
    private ParkedEvent shown(ParkedEvent event) {
        long shown = settings.maxPayloadShown().toBytes();
        if (event.envelope() == null) {
            return event;
        }
        Map<String, Object> envelope = new LinkedHashMap<>(event.envelope());
        boolean cut = false;
        for (String field : List.of("payload", "payload_base64")) {
            if (envelope.get(field) instanceof String text && text.length() > shown) {
                envelope.put(field, text.substring(0, (int) shown));
                cut = true;
            }
        }
        return cut ? new ParkedEvent(event.sequence(), event.subject(), event.storedAt(), event.form(), envelope,
                event.payloadBytes(), true, event.raw()) : event;
    }

    private long json(ParkedEvent event) {
        try {
            return mapper.writeValueAsBytes(event).length;
        }
        catch (IOException e) {
            throw new IllegalStateException("cannot measure parked event " + event.sequence(), e);
        }
    }

    private record Sized(ParkedEvent event, long bytes) {
    }

    private record Newest(List<ParkedEvent> events, long bytes, boolean full) {
    }

    /**
     * The smallest position in [lo, hi + 1] from which the next stored message is at or
     * after the instant, by binary search: store times grow with the sequence.
     * {@code hi + 1} when every message is older.
     */
    private long firstPositionAtOrAfter(Instant instant, long lo, long hi) {
        long a = lo;
        long b = hi + 1;
        while (a < b) {
            long mid = a + (b - a) / 2;
            Optional<MessageInfo> message = next(mid, ALL_SUBJECTS).filter(m -> m.getSeq() <= hi);
            if (message.isEmpty() || !message.get().getTime().toInstant().isBefore(instant)) {
                b = mid;
            }
            else {
                a = message.get().getSeq() + 1;
            }
        }
        return a;
    }

    /** The first message at or after a sequence matching the filter. */
    private Optional<MessageInfo> next(long sequence, String filter) {
        try {
            return Optional.of(jsm.getNextMessage(STREAM, Math.max(1, sequence), filter));
        }
        catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == JetStreamErrors.NO_MESSAGE_FOUND) {
                return Optional.empty();
            }
            throw new DeadLetterUnavailableException("read " + STREAM + " from sequence " + sequence, e);
        }
        catch (IOException e) {
            throw new DeadLetterUnavailableException("read " + STREAM + " from sequence " + sequence, e);
        }
    }

    private void delete(long sequence) {
        try {
            if (!jsm.deleteMessage(STREAM, sequence)) {
                throw new ParkedEventNotFoundException(sequence);
            }
        }
        catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == JetStreamErrors.NO_MESSAGE_FOUND) {
                throw new ParkedEventNotFoundException(sequence);
            }
            throw new DeadLetterUnavailableException("delete " + STREAM + " sequence " + sequence, e);
        }
        catch (IOException e) {
            throw new DeadLetterUnavailableException("delete " + STREAM + " sequence " + sequence, e);
        }
    }

    private ParkedEvent parked(MessageInfo message) {
        byte[] data = message.getData() == null ? new byte[0] : message.getData();
        String storedAt = message.getTime() == null ? null : message.getTime().toInstant().toString();
        if (DeadLetterHeaders.isRawForm(message.getHeaders())) {
            DeathEnvelope envelope = DeadLetterHeaders.envelope(message.getHeaders(), data);
            return new ParkedEvent(message.getSeq(), message.getSubject(), storedAt, ParkedEvent.FORM_HEADERS,
                    ParkedTrace.shown(mapper.convertValue(envelope, JSON_OBJECT), message.getHeaders()),
                    (long) data.length, null, null);
        }
        try {
            JsonNode envelope = mapper.readTree(data);
            if (envelope != null && envelope.isObject()) {
                Map<String, Object> fields = ParkedTrace.shown(mapper.convertValue(envelope, JSON_OBJECT),
                        message.getHeaders());
                return new ParkedEvent(message.getSeq(), message.getSubject(), storedAt, ParkedEvent.FORM_JSON, fields,
                        payloadBytes(fields), null, null);
            }
        }
        catch (IOException notJson) {
            log.debug("{} sequence {} is not JSON: {}", STREAM, message.getSeq(), notJson.getMessage());
        }
        return new ParkedEvent(message.getSeq(), message.getSubject(), storedAt, ParkedEvent.FORM_UNKNOWN, null,
                (long) data.length, null, new String(data, StandardCharsets.UTF_8));
    }

    /**
     * The original payload's size from a JSON envelope's {@code payload} or
     * {@code payload_base64}.
     */
    private static Long payloadBytes(Map<String, Object> envelope) {
        if (envelope.get("payload_base64") instanceof String base64) {
            int padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
            return base64.length() / 4L * 3 - padding;
        }
        if (envelope.get("payload") instanceof String text) {
            return (long) text.getBytes(StandardCharsets.UTF_8).length;
        }
        return null;
    }

    /** One replay request's progress. */
    private final class ReplayRun {

        private final List<ReplayReport.Replayed> replayed = new ArrayList<>();

        private final List<ReplayReport.Failed> failed = new ArrayList<>();

        private boolean more;

        private String stopped;

        int count() {
            return replayed.size() + failed.size();
        }

        void replay(ParkedEvent event) {
            if (!inWork.add(event.sequence())) {
                unconfirmed(event, "another replay or purge on this node works on it");
                return;
            }
            try {
                replayClaimed(event);
            }
            finally {
                inWork.remove(event.sequence());
            }
        }

        private void replayClaimed(ParkedEvent event) {
            long sequence = event.sequence();
            DeathEnvelope envelope;
            try {
                envelope = event.envelope() == null ? null
                        : envelopes.readValue((JsonNode) mapper.valueToTree(event.envelope()));
            }
            catch (IOException | IllegalArgumentException e) {
                envelope = null;
            }
            if (envelope == null || envelope.originalSubject() == null || envelope.originalSubject().isBlank()) {
                fail(event, "not a death envelope with an original_subject; left parked (purge it if it is junk)");
                return;
            }
            if (envelope.originalSubject().startsWith(DurableNames.DLQ_ROOT + ".")) {
                fail(event, "original_subject " + envelope.originalSubject() + " is a DLQ subject; left parked");
                return;
            }
            PublishReceipt receipt;
            try {
                receipt = transport
                    .publish(new OutboundMessage(envelope.originalSubject(), envelope.originalPayload(),
                            "replay:" + sequence + ":" + UUID.randomUUID())
                        .withHeaders(ParkedTrace.replayHeaders(event)))
                    .get(settings.replayTimeout().toMillis(), TimeUnit.MILLISECONDS);
            }
            catch (ExecutionException | TimeoutException | RuntimeException e) {
                unconfirmed(event, notConfirmed(envelope.originalSubject(), e));
                return;
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                unconfirmed(event, "publish to " + envelope.originalSubject() + " was interrupted");
                return;
            }
            if (!receipt.stored()) {
                unconfirmed(event, "publish to " + envelope.originalSubject() + " was not stored by any stream");
                return;
            }
            try {
                delete(sequence);
            }
            catch (RuntimeException e) {
                fail(event,
                        "replayed to " + envelope.originalSubject() + " (" + receipt.stream() + " sequence "
                                + receipt.sequence() + ") but not removed from " + STREAM + ": " + e.getMessage()
                                + "; purge sequence " + sequence + " so that it is not replayed twice");
                return;
            }
            log.info("replayed {} sequence {} to {} ({} sequence {})", STREAM, sequence, envelope.originalSubject(),
                    receipt.stream(), receipt.sequence());
            replayed.add(new ReplayReport.Replayed(sequence, event.unit(), envelope.originalSubject(), receipt.stream(),
                    receipt.sequence()));
        }

        private String notConfirmed(String subject, Exception error) {
            Throwable cause = error instanceof ExecutionException && error.getCause() != null ? error.getCause()
                    : error;
            if (cause instanceof TimeoutException) {
                return "publish to " + subject + " was not confirmed: no PubAck within "
                        + settings.replayTimeout().toMillis() + " ms";
            }
            return cause instanceof PublishException ? cause.getMessage()
                    : "publish to " + subject + " failed: " + cause;
        }

        private void unconfirmed(ParkedEvent event, String reason) {
            fail(event, reason + "; left parked");
            stopped = "sequence " + event.sequence() + " could not be replayed; the events after it were left parked";
        }

        private void fail(ParkedEvent event, String error) {
            log.warn("replay of {} sequence {} failed: {}", STREAM, event.sequence(), error);
            failed.add(new ReplayReport.Failed(event.sequence(), event.unit(), error));
        }

    }

}
