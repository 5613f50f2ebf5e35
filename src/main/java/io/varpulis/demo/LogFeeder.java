package io.varpulis.demo;

import io.nats.client.Connection;
import io.varpulis.bruteforce.SshEvents;
import io.varpulis.dlq.DeadLetterParker;
import io.varpulis.demo.LogInput.LogLine;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventBatch;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.ClusterTransports;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishException;
import io.varpulis.transport.PublishReceipt;
import io.varpulis.transport.TransportSettings;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The demo's feeder: publishes the log's lines into the group's
 * {@code _external -> ingress} edge on the jetstream substrate, as a node would (one
 * {@code Nats-Msg-Id} a message, retried until stored), and kills the victims on the way
 * (SPEC section 7).
 */
final class LogFeeder {

    /**
     * A publish is retried until then: longer than a leader election or a NATS restart.
     */
    private static final Duration PUBLISH_GIVE_UP = Duration.ofMinutes(5);

    /**
     * Sleeping less than this costs more than it waits: the feeder catches up instead.
     */
    private static final long MIN_SLEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /**
     * Publish retries, and when the last was reported: at 20 000 lines/s an election
     * fails thousands at once.
     */
    private final AtomicLong publishRetries = new AtomicLong();

    private final AtomicLong lastRetryNotice = new AtomicLong(System.nanoTime() - TimeUnit.SECONDS.toNanos(1));

    private final DemoOptions options;

    private final PrintStream out;

    private final JetStreamAdmin admin;

    /**
     * @param options {@code --rate}, {@code --batch}
     * @param out where progress, kills and retries are printed
     * @param admin the demo's admin, which remembers the PubAcks (what the servers lose
     * of them is named, issue 43)
     */
    LogFeeder(DemoOptions options, PrintStream out, JetStreamAdmin admin) {
        this.options = options;
        this.out = out;
        this.admin = admin;
    }

    /**
     * How the stream went.
     *
     * @param firstPublish when the first line was published
     * @param seconds first publish to the last PubAck
     * @param killedAt when the victims were killed, or {@code null}
     */
    record Streamed(Instant firstPublish, double seconds, Instant killedAt) {
    }

    /**
     * Streams the lines into {@code _external -> ingress} at {@code --rate} lines/s,
     * {@link #linesPerMessage} a message, killing (SIGKILL) and restarting the victims
     * after {@code killAt} lines, and waits for every PubAck.
     * @param connection the demo's connection
     * @param lines the input
     * @param years each line's year (see {@link SyslogYears})
     * @param runId the run's id, the head of every message id
     * @param victims the nodes to kill, none for no kill
     * @param killAt how many lines go before the kill
     * @return how the stream went
     * @throws IllegalArgumentException when a line's event is over what the server takes
     * @throws java.util.concurrent.ExecutionException when a publish was refused, or not
     * stored within {@link #PUBLISH_GIVE_UP}
     * @throws java.util.concurrent.TimeoutException when the PubAcks still lack a minute
     * after that
     */
    Streamed stream(Connection connection, List<LogLine> lines, int[] years, String runId, List<NodeProcess> victims,
            int killAt) throws Exception {
        Instant killedAt = null;
        try (ClusterTransport transport = ClusterTransports.create(connection, Substrate.JETSTREAM, admin,
                TransportSettings.defaults())) {
            String subject = new RouteEdge(BruteForceDemo.GROUP, "_external", "ingress").subject();
            EventCodec codec = new EventCodec();
            long nanosPerLine = 1_000_000_000L / options.rate();
            int perMessage = linesPerMessage(options);
            long maxBytes = batchBytes(transport.maxPayload());
            Instant firstPublish = Instant.now();
            long started = System.nanoTime();
            long progressAt = started + BruteForceDemo.PROGRESS_NANOS;
            List<CompletableFuture<PublishReceipt>> receipts = new ArrayList<>();
            int next = 0;
            while (next < lines.size()) {
                if (!victims.isEmpty() && killedAt == null && next >= killAt) {
                    killedAt = Instant.now();
                    for (NodeProcess victim : victims) {
                        long pid = victim.kill();
                        out.printf("line %d: killed %s (pid %d) with SIGKILL%n", next, victim.name(), pid);
                    }
                    for (NodeProcess victim : victims) {
                        victim.start();
                        out.printf("line %d: restarted %s (pid %d)%n", next, victim.name(), victim.pid());
                    }
                }
                // A message ends at the kill line, so that the kill comes after exactly
                // --kill-at lines.
                int end = Math.min(lines.size(), next + perMessage);
                if (killedAt == null && !victims.isEmpty() && next < killAt && killAt < end) {
                    end = killAt;
                }
                publishLines(transport, codec, subject, runId, lines, years, next, end, maxBytes, receipts);
                next = end;
                long now = System.nanoTime();
                if (now >= progressAt) {
                    out.printf(Locale.ROOT, "streamed %d of %d lines (%.0f lines/s)%n", next, lines.size(),
                            next / ((now - started) / 1e9));
                    progressAt = now + BruteForceDemo.PROGRESS_NANOS;
                }
                long wait = started + next * nanosPerLine - now;
                if (wait > MIN_SLEEP_NANOS) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
            }
            CompletableFuture.allOf(receipts.toArray(CompletableFuture[]::new))
                .get(PUBLISH_GIVE_UP.toSeconds() + 60, TimeUnit.SECONDS);
            double seconds = (System.nanoTime() - started) / 1e9;
            out.printf(Locale.ROOT, "streamed %d lines into %s in %.1f s (%.0f lines/s, every PubAck received)%n",
                    lines.size(), subject, seconds, lines.size() / seconds);
            return new Streamed(firstPublish, seconds, killedAt);
        }
    }

    /**
     * Publishes lines {@code [from, to)} as one message: one {@code SshLogLine} with
     * {@code --batch 1}, else an {@code SshLogLines} batch, split in two (and again)
     * while its JSON is over {@code maxBytes}. The message id, {@code {run}:line:{n}} or
     * {@code {run}:lines:{first}-{last}} (1-based), is the same on every retry.
     */
    private void publishLines(ClusterTransport transport, EventCodec codec, String subject, String runId,
            List<LogLine> lines, int[] years, int from, int to, long maxBytes,
            List<CompletableFuture<PublishReceipt>> receipts) {
        List<Event> events = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            events.add(LogInput.lineEvent(lines.get(i), i + 1, years[i]));
        }
        boolean single = options.batch() == 1 && events.size() == 1;
        byte[] payload = codec.encode(single ? events.get(0) : EventBatch.of(SshEvents.LOG_LINES, events));
        if (payload.length > maxBytes && to - from > 1) {
            int middle = from + (to - from) / 2;
            publishLines(transport, codec, subject, runId, lines, years, from, middle, maxBytes, receipts);
            publishLines(transport, codec, subject, runId, lines, years, middle, to, maxBytes, receipts);
            return;
        }
        long maxPayload = transport.maxPayload();
        if (maxPayload > 0 && payload.length + DeadLetterParker.RAW_FORM_HEADER_RESERVE > maxPayload) {
            throw new IllegalArgumentException("line " + (from + 1) + " is " + payload.length + " bytes as an event, "
                    + "over what the NATS server takes (max_payload " + maxPayload + " bytes, less "
                    + DeadLetterParker.RAW_FORM_HEADER_RESERVE + " for the headers a park would need): it cannot be "
                    + "routed or parked. Nothing was published from line " + (from + 1) + " on; cut the line, or "
                    + "raise the server's max_payload");
        }
        String id = single ? runId + ":line:" + to : runId + ":lines:" + (from + 1) + "-" + to;
        receipts.add(publishUntilStored(transport, new OutboundMessage(subject, payload, id),
                System.nanoTime() + PUBLISH_GIVE_UP.toNanos()));
    }

    /**
     * Refuses, before any node starts, a log with a line that could not be routed alone:
     * its event over the server's max_payload less the room a park's headers need.
     * @throws IllegalArgumentException naming the first such line, its size and the limit
     */
    static void checkLineSizes(List<LogLine> lines, int[] years, long maxPayload) {
        if (maxPayload <= 0) {
            return;
        }
        EventCodec codec = new EventCodec();
        long limit = maxPayload - DeadLetterParker.RAW_FORM_HEADER_RESERVE;
        for (int i = 0; i < lines.size(); i++) {
            // In the event's JSON a character takes at most 6 bytes (a control character
            // escaped): only a line
            // that could be over the limit is encoded to be sure.
            if (lines.get(i).text().length() * 6L + 100 > limit) {
                int bytes = codec.encode(LogInput.lineEvent(lines.get(i), i + 1, years[i])).length;
                if (bytes > limit) {
                    throw new IllegalArgumentException("line " + (i + 1) + " is " + bytes + " bytes as an event, "
                            + "over what the NATS server takes (max_payload " + maxPayload + " bytes, less "
                            + DeadLetterParker.RAW_FORM_HEADER_RESERVE + " for the headers a park would need): it "
                            + "cannot be routed or parked. Nothing was published; cut the line, or raise the "
                            + "server's max_payload");
                }
            }
        }
    }

    /**
     * @param options {@code --batch} and {@code --rate}
     * @return lines per message: {@code --batch}, but no more than a tenth of a second of
     * lines at the rate (a slow stream is not held back to fill a message)
     */
    static int linesPerMessage(DemoOptions options) {
        return Math.max(1, Math.min(options.batch(), options.rate() / 10));
    }

    /**
     * @return the most bytes of JSON one message of lines carries: half the server's
     * max_payload (room for the ingress's batch of failures and the parks of its lines),
     * at most 512 KiB
     */
    private static long batchBytes(long maxPayload) {
        return maxPayload <= 0 ? 512 * 1024 : Math.min(512 * 1024, maxPayload / 2);
    }

    /**
     * Publishes until the stream confirms, retrying a failed publish (server restarting,
     * leader election, PubAck timeout) every second with the same Nats-Msg-Id, so a retry
     * of a message that was in fact stored is dropped as a duplicate.
     */
    private CompletableFuture<PublishReceipt> publishUntilStored(ClusterTransport transport, OutboundMessage message,
            long giveUpNanos) {
        return transport.publish(message).handle((receipt, error) -> {
            if (error == null) {
                return CompletableFuture.completedFuture(receipt);
            }
            if (System.nanoTime() > giveUpNanos || PublishException.classify(error) == PublishException.Kind.REFUSED) {
                // Refused (too large, a bad header): asking again would never be stored.
                return CompletableFuture.<PublishReceipt>failedFuture(error);
            }
            long retries = publishRetries.incrementAndGet();
            long now = System.nanoTime();
            long last = lastRetryNotice.get();
            if (now - last >= TimeUnit.SECONDS.toNanos(1) && lastRetryNotice.compareAndSet(last, now)) {
                out.printf("publish of %s not confirmed (%s); retrying every second with the same message id "
                        + "(%d retries so far)%n", message.messageId(), error.getMessage(), retries);
            }
            return CompletableFuture.supplyAsync(() -> null, CompletableFuture.delayedExecutor(1, TimeUnit.SECONDS))
                .thenCompose(ignored -> publishUntilStored(transport, message, giveUpNanos));
        }).thenCompose(f -> f);
    }

}
