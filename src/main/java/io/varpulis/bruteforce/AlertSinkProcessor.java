package io.varpulis.bruteforce;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventProcessor;
import io.varpulis.pipeline.KeyValueState;
import io.varpulis.pipeline.ProcessingContext;
import io.varpulis.support.DaemonThreads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The {@code alerts} pipeline of {@code ssh-bruteforce}: records each
 * {@value SshEvents#BRUTE_FORCE_SUSPECTED} as one JSON line
 * {@code {"src_ip":"5.36.59.76","window_start":"2026-12-10T07:10:00Z","failures":6}} in a
 * file, and logs it at INFO.
 * <p>
 * Idempotent: at most one line per (src_ip, window_start), across redeliveries, restarts
 * and the processes the pipeline moves between (SPEC section 9, fencing every effect).
 * The lines already in the file are loaded on construction; before writing a line the
 * sink claims the alert in the pipeline's state (key {@code sink.{window start epoch
 * seconds}.{src_ip as unpadded base64url}}, value {@code {"alert": "...", "message_id":
 * "...", "claimed_at": "..."}}) and waits until the claim is stored. The state has one
 * writer, fenced by the server: a superseded owner (a worker resumed after its pipeline
 * moved) has its claim refused and writes nothing. A claim found stored already means
 * another placement got that far: this one first proves against the server that it still
 * owns the state ({@link KeyValueState#verifyOwnership()}, so a superseded owner that
 * sees its successor's claim writes nothing), then, holding an exclusive lock on the file
 * ({@link FileLock}), reads the file again, checks ownership
 * ({@link ProcessingContext#requireOwnership()}) and appends the line only if it is not
 * there (its predecessor stopped between its claim and its write). The lock covers "read,
 * check, append", so a placement paused in between keeps its successor waiting until its
 * line is written (the successor tries again meanwhile, without spending a delivery), and
 * the successor then finds it. The route ingress acks an alert only once its line is on
 * disk: the ack waits ({@link ProcessingContext#ackAfter}) for the claim, then the line,
 * written on the sink's writer thread once the claim is stored (so the claims of
 * consecutive alerts are in flight together), then an {@code fdatasync} shared by the
 * alerts appended meanwhile ({@link GroupFsync}: one sync per group instead of one per
 * line). Both were the main job's bound in issue 27. Under the lock only the lines
 * appended since the sink last read the file are read again.
 * <p>
 * {@link #process} is synchronized, so one instance may be called from several threads;
 * the processes a pipeline moves between may share the file (one at a time owns the
 * pipeline).
 */
public final class AlertSinkProcessor implements EventProcessor {

    private static final Logger log = LoggerFactory.getLogger(AlertSinkProcessor.class);

    private static final ObjectMapper JSON = new ObjectMapper();

    /** How often the writer says at WARN that a line still waits. */
    private static final Duration CLAIM_TIMEOUT = AlertFile.LOCK_TIMEOUT;

    /**
     * Writes the lines of new claims once they are stored, in the order their PubAcks
     * arrive: one thread for the process, since the lines of one file are written one at
     * a time under its lock anyway.
     */
    private static final ScheduledExecutorService WRITER = Executors
        .newSingleThreadScheduledExecutor(DaemonThreads.named("varpulis-alert-writer"));

    /**
     * The first and the longest wait before a line is tried again (file locked by another
     * process, broker away).
     */
    private static final long RETRY_FIRST_MILLIS = 20;

    private static final long RETRY_MAX_MILLIS = 1000;

    private final Path file;

    /**
     * Guards {@link #written} and {@link #known}; taken after the file's lock, never the
     * other way round.
     */
    private final Object ledger = new Object();

    private final Set<String> written = new HashSet<>();

    /** The file's length up to which its complete lines are in {@link #written}. */
    private long known;

    /**
     * The alerts whose claim was sent and whose line is not written and synced yet: what
     * their acks wait for.
     */
    private final Map<String, CompletableFuture<Void>> lines = new ConcurrentHashMap<>();

    /**
     * Opens the alert file, creating it and its directories when absent, and loads the
     * alerts it holds.
     * <p>
     * A last line without its newline is what a crash in the middle of an append leaves;
     * it is cut off (its length logged at WARN), since its input was not acked and the
     * alert comes back on redelivery. The file is cut only once every complete line is
     * known to be an alert and the tail looks like the start of one: a file that is not
     * an alert file is refused, never changed.
     * @param file the alert file (JSON lines, UTF-8); the caller confines it (see
     * {@link SshProcessorTypes})
     * @throws UncheckedIOException when the file cannot be created, read or repaired
     * @throws IllegalStateException when it is not a regular file (a symbolic link, a
     * device, a directory), when a complete line is not an alert, naming the file and
     * line, or when its last line is no start of an alert
     */
    public AlertSinkProcessor(Path file) {
        this.file = file;
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            // Created now so that a bad path or permission fails at deployment, not at
            // the first alert.
            if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                Files.createFile(file);
            }
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                throw new IllegalStateException("alert file " + file + " is not a regular file (a symbolic link, "
                        + "a device or a directory); name another file");
            }
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS)) {
                byte[] bytes = AlertFile.readFrom(channel, 0);
                int complete = AlertFile.lengthOfCompleteLines(bytes);
                loadWritten(new String(bytes, 0, complete, StandardCharsets.UTF_8));
                if (complete < bytes.length) {
                    AlertFile.cutTornLine(channel, file, complete, bytes.length - complete, bytes[complete]);
                }
                known = complete;
            }
            log.info("alert file {} opened with {} alert(s) already recorded; those are not written again", file,
                    written.size());
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot open the alert file " + file, e);
        }
    }

    /**
     * Records one alert, unless its (src_ip, window_start) is recorded already: claims it
     * in the state, then, once the claim is stored, checks ownership and appends the
     * line; the input's ack waits for the line's sync.
     * <p>
     * A new claim's line is written on the sink's writer thread when the claim's PubAck
     * arrives, not here: the next alert's claim is sent meanwhile, so the claims' round
     * trips overlap instead of adding up (issue 27: one quorum round trip per alert, one
     * at a time, bounded the main job on R3). The order stays claim stored, then
     * ownership checked, then line, then sync, then ack; a refused claim fails the
     * apply's confirmation ({@link ProcessingContext#ackAfter}) with its
     * {@link KeyValueState.StateFencedException} instead of this call, and nothing is
     * written. A claim found stored already is handled here, as before.
     * @return no events
     * @throws IllegalArgumentException when the event is not a valid
     * {@value SshEvents#BRUTE_FORCE_SUSPECTED}
     * @throws KeyValueState.StateFencedException when a later placement owns the
     * pipeline: nothing is written
     * @throws KeyValueState.StateUnavailableException when a claim found stored cannot be
     * checked against the server, or the file is locked by another process for 10 s:
     * nothing is written, the apply is tried again
     * @throws IOException when the line of a claim found stored cannot be appended; the
     * file is cut back to its previous length and the alert is not marked written, so a
     * retry writes it (a failed append or sync after a new claim fails the apply through
     * {@link ProcessingContext#ackAfter} instead)
     */
    @Override
    public synchronized List<Event> process(Event event, ProcessingContext context) throws IOException {
        BruteForceAlert alert = BruteForceAlert.fromEvent(event);
        boolean recorded;
        synchronized (ledger) {
            recorded = written.contains(alert.id());
        }
        if (recorded) {
            log.debug("alert {} is already in {}; not writing it again (message {}, attempt {})", alert.id(), file,
                    context.messageId(), context.attempt());
            // Its line may still wait for its sync (written by an apply whose ack waits
            // too): this ack waits as well.
            context.ackAfter(GroupFsync.of(file).request());
            return List.of();
        }
        CompletableFuture<Void> inFlight = lines.get(alert.id());
        if (inFlight != null) {
            // An earlier apply (a redelivery's first copy) claimed it and its line is on
            // its way: wait for that one.
            log.debug("alert {} is being written to {} already; message {} waits for that line", alert.id(), file,
                    context.messageId());
            context.ackAfter(inFlight);
            return List.of();
        }
        KeyValueState state = context.state();
        String claim = claimKey(alert);
        if (state.get(claim).isEmpty()) {
            state.put(claim, JSON.writeValueAsBytes(Map.of("alert", alert.id(), "message_id", context.messageId(),
                    "claimed_at", Instant.now().toString())));
            CompletableFuture<Void> claimed = state.flush();
            if (!claimed.isDone()) {
                CompletableFuture<Void> appended = new CompletableFuture<>();
                claimed.whenComplete((stored, refused) -> {
                    if (refused != null) {
                        appended.completeExceptionally(refused);
                    }
                    else {
                        WRITER.execute(() -> tryWrite(alert, context, appended, 0));
                    }
                });
                CompletableFuture<Void> line = appended.thenCompose(done -> GroupFsync.of(file).request());
                lines.put(alert.id(), line);
                line.whenComplete((ok, error) -> lines.remove(alert.id(), line));
                context.ackAfter(line);
                return List.of();
            }
            // Stored already (the in-memory state of core): written here; a refused claim
            // throws here.
            try {
                claimed.join();
            }
            catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException refused ? refused : e;
            }
        }
        else {
            // An earlier placement claimed it, or a later one did and is about to write:
            // only the server's fence
            // tells them apart, so it is read here whether or not a pause was seen.
            state.verifyOwnership();
        }
        writeClaimed(alert, context);
        // Requested after the write returned: the sync it waits for covers the line.
        context.ackAfter(GroupFsync.of(file).request());
        return List.of();
    }

    /**
     * On the writer thread: writes the line of an alert whose claim is stored, or tries
     * again later, never blocking the thread (it serves every sink of the process): after
     * {@value #RETRY_FIRST_MILLIS} ms, doubling up to {@value #RETRY_MAX_MILLIS} ms,
     * while the file is locked by another process (one paused in the middle of its write)
     * or ownership cannot be proven (the broker away after a pause). Neither spends a
     * delivery, as the synchronous path's broker wait does not; a later placement's
     * fence, the pipeline stopped or an I/O error ends it with that failure (WARN every
     * 10 s meanwhile).
     */
    private void tryWrite(BruteForceAlert alert, ProcessingContext context, CompletableFuture<Void> appended,
            int tries) {
        String waitingFor;
        try {
            if (write(alert, context, false)) {
                appended.complete(null);
                return;
            }
            waitingFor = "the file is locked by another process (one paused while writing?)";
        }
        catch (KeyValueState.StateUnavailableException e) {
            waitingFor = e.getMessage();
        }
        catch (IOException e) {
            appended.completeExceptionally(
                    new UncheckedIOException("cannot append alert " + alert.id() + " to " + file, e));
            return;
        }
        catch (RuntimeException | Error e) {
            appended.completeExceptionally(e);
            return;
        }
        long delay = Math.min(RETRY_MAX_MILLIS, RETRY_FIRST_MILLIS << Math.min(tries, 10));
        if (tries > 0 && (tries * RETRY_MAX_MILLIS) % CLAIM_TIMEOUT.toMillis() == 0) {
            log.warn("alert {} is claimed but not written to {} yet: {}; trying again", alert.id(), file, waitingFor);
        }
        WRITER.schedule(() -> tryWrite(alert, context, appended, tries + 1), delay, TimeUnit.MILLISECONDS);
    }

    /**
     * Appends the line of an alert whose claim is stored, unless another placement wrote
     * it: under the file's lock (waiting up to 10 s for another process to release it),
     * reads what the file gained, checks ownership, appends.
     * @throws KeyValueState.StateUnavailableException when the file is still locked by
     * another process after 10 s
     */
    private void writeClaimed(BruteForceAlert alert, ProcessingContext context) throws IOException {
        write(alert, context, true);
    }

    /**
     * @param wait wait up to 10 s for a file lock another process holds, rather than
     * return at once
     * @return whether the line is in the file (written now or found there); {@code false}
     * when the file is locked by another process and {@code wait} is false
     */
    private boolean write(BruteForceAlert alert, ProcessingContext context, boolean wait) throws IOException {
        synchronized (AlertFile.lockOf(file)) {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS);
                    FileLock held = wait ? AlertFile.lock(channel, file, alert) : channel.tryLock()) {
                if (held == null) {
                    return false;
                }
                synchronized (ledger) {
                    // Under the lock: a placement paused between its check and its write
                    // still holds it, so its
                    // successor waits until the line is there and finds it.
                    if (writtenSinceOpened(channel, alert)) {
                        // That placement may have stopped before its line was synced: the
                        // caller's ack waits for a
                        // sync either way.
                        log.info("alert {} was written to {} by another placement of this pipeline; not writing "
                                + "it again", alert.id(), file);
                        return true;
                    }
                    context.requireOwnership();
                    long before = channel.size();
                    long end = AlertFile.append(channel, alert);
                    if (known == before) {
                        known = end;
                    }
                    written.add(alert.id());
                }
            }
        }
        log.info("brute-force suspected from {}: {} failed passwords in the window starting {}; recorded in {}",
                alert.srcIp(), alert.failures(), alert.windowStart(), file);
        return true;
    }

    /**
     * @param alert an alert
     * @return its claim's state key, {@code sink.{window start epoch seconds}.{src_ip as
     * unpadded base64url}}
     */
    static String claimKey(BruteForceAlert alert) {
        return "sink." + alert.windowStart().getEpochSecond() + "."
                + Base64.getUrlEncoder()
                    .withoutPadding()
                    .encodeToString(alert.srcIp().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Reads the complete lines appended since the sink last read the file (another
     * process may have appended): is the alert among them now? The file only grows by
     * whole lines under the lock (a torn last line is cut only when a sink opens it), so
     * the lines before {@link #known} are read once; a file found shorter is read again
     * whole.
     */
    private boolean writtenSinceOpened(FileChannel channel, BruteForceAlert alert) throws IOException {
        long from = channel.size() < known ? 0 : known;
        byte[] bytes = AlertFile.readFrom(channel, from);
        int complete = AlertFile.lengthOfCompleteLines(bytes);
        loadWritten(new String(bytes, 0, complete, StandardCharsets.UTF_8));
        known = from + complete;
        return written.contains(alert.id());
    }

    private void loadWritten(String content) {
        written.addAll(AlertFile.alertIds(content, file));
    }

}
