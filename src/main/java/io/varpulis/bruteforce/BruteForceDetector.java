package io.varpulis.bruteforce;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventBatch;
import io.varpulis.pipeline.EventProcessor;
import io.varpulis.pipeline.KeyValueState;
import io.varpulis.pipeline.ProcessingContext;
import io.varpulis.pipeline.UnprocessableEventException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code detect} pipeline of {@code ssh-bruteforce}, the rule of SPEC section 7: for
 * each source IP and each tumbling window aligned to the epoch
 * ({@code window_start = floor(epochSeconds / window) * window}), one
 * {@value SshEvents#BRUTE_FORCE_SUSPECTED} alert when the window's failure count reaches
 * the threshold.
 * <p>
 * In: {@value SshEvents#AUTH_FAILURE} {@code {"src_ip", "failures"}} with a timestamp;
 * {@code failures} defaults to 1 when absent; or a {@value SshEvents#AUTH_FAILURES} batch
 * of them, counted in order. Out: nothing, or one alert {@code {"src_ip", "window_start",
 * "failures"}} (see {@link BruteForceAlert}) timestamped with the window start.
 * <p>
 * Delivery is at-least-once and the worker may be killed at any point, so all state lives
 * in {@link ProcessingContext#state()}, one key per (window, source), and every update is
 * idempotent per {@link ProcessingContext#messageId()}:
 * <ul>
 * <li>key
 * {@code bf.<window start epoch seconds>.<src_ip with '.' as '_' and ':' as '-'>}, e.g.
 * {@code bf.1796886600.5_36_59_76}, for an address (an IPv6 zone after {@code =}, its
 * {@code _}, {@code .} and {@code -} as {@code _5f}, {@code _2e}, {@code _2d}), and
 * {@code bf.<window start>.h=<host name>} for a host name ({@link #stateKey});</li>
 * <li>before the threshold, value {@code {"failures": N, "seen": ["<message id>", ...],
 * "alerted": false}}: an input whose id is in {@code seen} was counted already and is not
 * counted again;</li>
 * <li>from the threshold on, value {@code {"failures": N, "alerted": true, "alerted_by":
 * "<message id>"}}: the count is frozen at the crossing, {@code seen} is dropped, and
 * other inputs for the key are ignored. The input that crossed the threshold re-emits the
 * same alert every time it is redelivered, because the worker may have died after writing
 * the state but before the alert's PubAck and the input's ack; the duplicate is then
 * dropped by its {@code Nats-Msg-Id} and by the sink. The alert's output key
 * ({@link ProcessingContext#keyed}) is its identity ({@link #alertId(Event)}), so its
 * {@code Nats-Msg-Id} is {@code {input id}/{group}/{to}/k:alert:{src_ip}:{window start}},
 * whatever else the input emits.</li>
 * </ul>
 * This is exact only if a redelivered input keeps its message id: the publisher of the
 * {@value SshEvents#AUTH_FAILURE} events must set a deterministic {@code Nats-Msg-Id}.
 * Updates are read-then-write, so one key must not be applied by two threads at once: the
 * pipeline host applies one event at a time per pipeline. Across processes the state
 * keeps it exact (see {@link KeyValueState}): reads see this pipeline's own last write
 * (its cache, else the bucket's stream leader), every write expects the bucket unchanged
 * since the previous one, and a worker thought dead that still runs the pipeline has its
 * next write refused once the new placement opened the state, and stops instead of
 * overwriting. The writes of one apply are confirmed before its input is acked, so a
 * window's count is never lost between the write and the ack. The instance itself holds
 * only its settings and is thread-safe.
 */
public final class BruteForceDetector implements EventProcessor {

    /** SPEC section 7: five failures make a brute-force attempt. */
    public static final int DEFAULT_THRESHOLD = 5;

    /** SPEC section 7: the tumbling window is five minutes. */
    public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(5);

    private static final Logger log = LoggerFactory.getLogger(BruteForceDetector.class);

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * IPv4, IPv6 and IPv4-mapped text, with an optional IPv6 zone ({@code %eth0}).
     * Restricting src_ip to these characters makes the key mapping below injective, so
     * two sources can never share a window count.
     */
    private static final Pattern IP_TEXT = Pattern.compile("[0-9A-Fa-f.:]+(%[0-9A-Za-z_.-]+)?");

    /**
     * A host name's labels; its key keeps it as is after {@code h=}, which no address key
     * contains.
     */
    private static final Pattern HOST_TEXT = Pattern.compile("[0-9A-Za-z_-]+(?:\\.[0-9A-Za-z_-]+)*");

    private final int threshold;

    private final long windowSeconds;

    /**
     * A detector with the SPEC's rule: {@value #DEFAULT_THRESHOLD} failures in a 5-minute
     * window.
     */
    public BruteForceDetector() {
        this(DEFAULT_THRESHOLD, DEFAULT_WINDOW);
    }

    /**
     * @param threshold the failure count that raises the alert, at least 1
     * @param window the tumbling window's length, a positive whole number of seconds
     * @throws IllegalArgumentException when the threshold or window is out of range
     */
    public BruteForceDetector(int threshold, Duration window) {
        if (threshold < 1) {
            throw new IllegalArgumentException("threshold must be at least 1, got " + threshold);
        }
        if (window.isNegative() || window.isZero() || window.getNano() != 0) {
            throw new IllegalArgumentException("window must be a positive whole number of seconds, got " + window);
        }
        this.threshold = threshold;
        this.windowSeconds = window.getSeconds();
    }

    /**
     * The deterministic id of an alert,
     * {@code alert:<src_ip>:<window start epoch seconds>}, to publish it with as
     * {@code Nats-Msg-Id} so that a re-emitted alert is dropped by JetStream's duplicate
     * window.
     * @param alert a {@value SshEvents#BRUTE_FORCE_SUSPECTED} event
     * @return the id, e.g. {@code alert:5.36.59.76:1796886600}
     * @throws IllegalArgumentException when the event is not a valid alert
     */
    public static String alertId(Event alert) {
        return BruteForceAlert.fromEvent(alert).id();
    }

    /**
     * Counts one failure event into its window, or each failure of a
     * {@value SshEvents#AUTH_FAILURES} batch in order (each identified by
     * {@link EventBatch#elementId}; one that cannot be counted is parked alone, the
     * others are counted). The batch's writes to one window are staged together, so each
     * window is written once per batch.
     * @return the alert when this input crosses the threshold (again, when it is
     * redelivered), otherwise nothing; for a batch, the alerts of its failures
     * @throws IllegalArgumentException when the event is not a
     * {@value SshEvents#AUTH_FAILURE}, has no timestamp, no {@code src_ip} (or one that
     * is neither an address nor a host name), or a {@code failures} that is not a
     * positive whole number
     * @throws ArithmeticException when the window's count would exceed 2^31-1
     * @throws KeyValueState.StateException when the state cannot be read, written, or
     * holds an unreadable value
     */
    @Override
    public List<Event> process(Event event, ProcessingContext context) {
        if (!SshEvents.AUTH_FAILURES.equals(event.eventType())) {
            return count(event, context.messageId(), context, new Windows(context.state()));
        }
        if (!EventBatch.isBatch(event)) {
            throw new UnprocessableEventException(
                    SshEvents.AUTH_FAILURES + " event without a list field '" + EventBatch.EVENTS + "'");
        }
        List<Event> alerts = new ArrayList<>();
        Windows windows = Windows.batch(context.state());
        for (EventBatch.Element element : EventBatch.elements(event)) {
            if (element.error() != null) {
                context.park(element.index(), EventBatch.alone(SshEvents.AUTH_FAILURES, element), element.error());
                continue;
            }
            try {
                alerts.addAll(count(element.event(), EventBatch.elementId(context.messageId(), element.index()),
                        context, windows));
            }
            catch (UnprocessableEventException e) {
                context.park(element.index(), element.event(), e.getMessage());
            }
            catch (ArithmeticException e) {
                context.park(element.index(), element.event(),
                        "its failures would take the window's count over " + "2^31-1");
            }
        }
        windows.writeChanged();
        return alerts;
    }

    /**
     * Counts one failure, identified by {@code messageId} (the input's, or a batch
     * element's).
     */
    private List<Event> count(Event event, String messageId, ProcessingContext context, Windows windows) {
        SshEvents.requireType(event, SshEvents.AUTH_FAILURE);
        String srcIp = SshEvents.requireText(event, SshEvents.SRC_IP);
        if (!IP_TEXT.matcher(srcIp).matches() && !HOST_TEXT.matcher(srcIp).matches()) {
            throw new UnprocessableEventException(
                    "src_ip '" + srcIp + "' is neither an IPv4 or IPv6 address nor a " + "host name");
        }
        if (event.timestamp() == null) {
            throw new UnprocessableEventException(SshEvents.AUTH_FAILURE + " event without a timestamp: " + event);
        }
        int failures = event.fields().containsKey(SshEvents.FAILURES)
                ? SshEvents.requirePositiveInt(event, SshEvents.FAILURES) : 1;
        long windowStart = Math.floorDiv(event.timestamp().getEpochSecond(), windowSeconds) * windowSeconds;
        String key = stateKey(srcIp, windowStart);

        WindowState window = windows.read(key);
        if (window.alerted()) {
            if (!messageId.equals(window.alertedBy())) {
                return List.of();
            }
            log.info(
                    "re-emitting brute-force alert for {} in window {}: message {} crossed the threshold and was "
                            + "delivered again (attempt {})",
                    srcIp, Instant.ofEpochSecond(windowStart), messageId, context.attempt());
            return List.of(alert(srcIp, windowStart, window.failures(), context));
        }
        if (window.seen().contains(messageId)) {
            return List.of();
        }
        // addExact: an absurd "message repeated" count parks the input instead of
        // wrapping around below the threshold.
        int count = Math.addExact(window.failures(), failures);
        if (count >= threshold) {
            windows.write(key, new WindowState(count, List.of(), true, messageId));
            return List.of(alert(srcIp, windowStart, count, context));
        }
        List<String> seen = new ArrayList<>(window.seen());
        seen.add(messageId);
        windows.write(key, new WindowState(count, seen, false, null));
        return List.of();
    }

    /**
     * The windows one apply reads and writes: straight through to the state for one
     * event; for a batch, decoded once per window and written once, in the order the
     * batch first changed them ({@link #writeChanged()}).
     */
    private static final class Windows {

        private final KeyValueState state;

        private final Map<String, WindowState> cached;

        private final Set<String> changed;

        Windows(KeyValueState state) {
            this(state, null, null);
        }

        private Windows(KeyValueState state, Map<String, WindowState> cached, Set<String> changed) {
            this.state = state;
            this.cached = cached;
            this.changed = changed;
        }

        /**
         * @return the windows of a batch, kept decoded until {@link #writeChanged()}
         */
        static Windows batch(KeyValueState state) {
            return new Windows(state, new HashMap<>(), new LinkedHashSet<>());
        }

        WindowState read(String key) {
            return cached == null ? BruteForceDetector.read(state, key)
                    : cached.computeIfAbsent(key, k -> BruteForceDetector.read(state, k));
        }

        void write(String key, WindowState window) {
            if (cached == null) {
                BruteForceDetector.write(state, key, window);
            }
            else {
                cached.put(key, window);
                changed.add(key);
            }
        }

        /** Writes the batch's changed windows to the state, each once. */
        void writeChanged() {
            if (changed != null) {
                changed.forEach(key -> BruteForceDetector.write(state, key, cached.get(key)));
            }
        }

    }

    /**
     * @param srcIp an address or host name, as validated by {@link #process}
     * @param windowStart the window's start, epoch seconds
     * @return the state key of that (window, source), distinct for distinct sources
     */
    public static String stateKey(String srcIp, long windowStart) {
        Matcher address = IP_TEXT.matcher(srcIp);
        if (!address.matches()) {
            return "bf." + windowStart + ".h=" + srcIp;
        }
        String zone = address.group(1);
        String text = zone == null ? srcIp : srcIp.substring(0, srcIp.length() - zone.length());
        // The address holds no '_', '-' or '='; the zone's '_', '.' and '-' are escaped
        // after '=' (key characters
        // only: letters, digits, '-', '_', '=', '.'), so distinct sources keep distinct
        // keys.
        return "bf." + windowStart + "." + text.replace('.', '_').replace(':', '-') + (zone == null ? ""
                : "=" + zone.substring(1).replace("_", "_5f").replace(".", "_2e").replace("-", "_2d"));
    }

    /**
     * The alert, keyed by its identity (src_ip, window_start): its message id is the same
     * whatever else is emitted.
     */
    private static Event alert(String srcIp, long windowStart, int failures, ProcessingContext context) {
        BruteForceAlert alert = new BruteForceAlert(srcIp, Instant.ofEpochSecond(windowStart), failures);
        return context.keyed(alert.toEvent(), alert.id());
    }

    private static WindowState read(KeyValueState state, String key) {
        Optional<byte[]> value = state.get(key);
        if (value.isEmpty()) {
            return new WindowState(0, List.of(), false, null);
        }
        try {
            return JSON.readValue(value.get(), WindowState.class);
        }
        catch (IOException e) {
            throw new KeyValueState.StateException("state key " + key + " does not hold a window count; delete it "
                    + "to restart that window from zero", e);
        }
    }

    private static void write(KeyValueState state, String key, WindowState window) {
        try {
            state.put(key, JSON.writeValueAsBytes(window));
        }
        catch (IOException e) {
            throw new KeyValueState.StateException("cannot encode the window count of state key " + key, e);
        }
    }

    /**
     * One (window, source) count as stored in the state: see the class comment for the
     * two shapes.
     *
     * @param failures the failures counted, frozen once alerted
     * @param seen the message ids counted, empty once alerted
     * @param alerted whether the threshold was crossed
     * @param alertedBy the message id that crossed it, {@code null} before
     */
    @JsonInclude(JsonInclude.Include.NON_EMPTY)
    public record WindowState(@JsonProperty("failures") int failures, @JsonProperty("seen") List<String> seen,
            @JsonProperty("alerted") boolean alerted, @JsonProperty("alerted_by") String alertedBy) {

        public WindowState {
            seen = seen == null ? List.of() : List.copyOf(seen);
        }
    }

}
