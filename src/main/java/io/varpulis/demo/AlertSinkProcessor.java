package io.varpulis.demo;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventProcessor;
import io.varpulis.pipeline.ProcessingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code alerts} pipeline of {@code ssh-bruteforce}: records each {@value SshEvents#BRUTE_FORCE_SUSPECTED} as
 * one JSON line {@code {"src_ip":"5.36.59.76","window_start":"2026-12-10T07:10:00Z","failures":6}} in a file, and
 * logs it at INFO.
 * <p>Idempotent: at most one line per (src_ip, window_start), across redeliveries and restarts, because the lines
 * already in the file are loaded on construction. Each line is forced to disk (fdatasync) before {@link #process}
 * returns, so the route ingress acks an alert only once its line is stored.
 * <p>{@link #process} is synchronized, so one instance may be called from several threads; two instances, or two
 * processes, must not append to the same file.
 */
public final class AlertSinkProcessor implements EventProcessor {

    private static final Logger log = LoggerFactory.getLogger(AlertSinkProcessor.class);

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path file;
    private final Set<String> written = new HashSet<>();

    /**
     * Opens the alert file, creating it and its directories when absent, and loads the alerts it holds.
     * <p>A last line without its newline is what a crash in the middle of an append leaves; it is cut off (and
     * logged at WARN), since its input was not acked and the alert comes back on redelivery.
     *
     * @param file the alert file (JSON lines, UTF-8)
     * @throws UncheckedIOException  when the file cannot be created, read or repaired
     * @throws IllegalStateException when a complete line of the file is not an alert, naming the file and line
     */
    public AlertSinkProcessor(Path file) {
        this.file = file;
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            // Created now so that a bad path or permission fails at deployment, not at the first alert.
            if (Files.notExists(file)) {
                Files.createFile(file);
            }
            byte[] bytes = Files.readAllBytes(file);
            int complete = lengthOfCompleteLines(bytes);
            if (complete < bytes.length) {
                log.warn("alert file {} ends with an incomplete line, left by a crash during a write: removing it; "
                        + "its alert is written again when its unacked input is redelivered: {}", file,
                        new String(bytes, complete, bytes.length - complete, StandardCharsets.UTF_8));
                try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                    channel.truncate(complete);
                    channel.force(false);
                }
            }
            loadWritten(new String(bytes, 0, complete, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the alert file " + file, e);
        }
    }

    /**
     * Records one alert, unless its (src_ip, window_start) is recorded already.
     *
     * @return no events
     * @throws IllegalArgumentException when the event is not a valid {@value SshEvents#BRUTE_FORCE_SUSPECTED}
     * @throws IOException              when the line cannot be appended and forced to disk; the file is cut back to
     *                                  its previous length and the alert is not marked written, so a retry writes it
     */
    @Override
    public synchronized List<Event> process(Event event, ProcessingContext context) throws IOException {
        BruteForceAlert alert = BruteForceAlert.fromEvent(event);
        if (written.contains(alert.id())) {
            log.debug("alert {} is already in {}; not writing it again (message {}, attempt {})", alert.id(), file,
                    context.messageId(), context.attempt());
            return List.of();
        }
        ByteBuffer line = ByteBuffer.wrap((JSON.writeValueAsString(alert.fields()) + "\n")
                .getBytes(StandardCharsets.UTF_8));
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND)) {
            long size = channel.size();
            try {
                while (line.hasRemaining()) {
                    channel.write(line);
                }
                // fdatasync: the bytes and the new length, which is all a reader of the file needs.
                channel.force(false);
            } catch (IOException e) {
                // Never leave half a line for the next append to glue onto (a full disk, for example).
                try {
                    channel.truncate(size);
                } catch (IOException undo) {
                    e.addSuppressed(undo);
                }
                throw e;
            }
        }
        written.add(alert.id());
        log.info("brute-force suspected from {}: {} failed passwords in the window starting {}; recorded in {}",
                alert.srcIp(), alert.failures(), alert.windowStart(), file);
        return List.of();
    }

    private static int lengthOfCompleteLines(byte[] bytes) {
        int end = bytes.length;
        while (end > 0 && bytes[end - 1] != '\n') {
            end--;
        }
        return end;
    }

    private void loadWritten(String content) {
        List<String> lines = content.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).isBlank()) {
                continue;
            }
            try {
                Map<String, Object> fields = JSON.readValue(lines.get(i), new TypeReference<>() {
                });
                written.add(BruteForceAlert.fromEvent(new Event(SshEvents.BRUTE_FORCE_SUSPECTED, null, fields)).id());
            } catch (IOException | IllegalArgumentException e) {
                throw new IllegalStateException("alert file " + file + " line " + (i + 1) + " is not an alert "
                        + "{\"src_ip\",\"window_start\",\"failures\"}: " + e.getMessage() + "; fix or move the file",
                        e);
            }
        }
        log.info("alert file {} opened with {} alert(s) already recorded; those are not written again", file,
                written.size());
    }
}
