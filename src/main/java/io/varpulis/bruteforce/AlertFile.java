package io.varpulis.bruteforce;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.KeyValueState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The alert file of {@link AlertSinkProcessor}, as bytes: one JSON line per alert
 * ({@code {"src_ip":"5.36.59.76","window_start":"2026-12-10T07:10:00Z","failures":6}}),
 * appended whole or not at all, under an exclusive lock between processes
 * ({@link FileLock}) and between the sinks of one process ({@link #lockOf}); a torn last
 * line (a crash in the middle of an append) cut off when a sink opens the file.
 */
final class AlertFile {

    private static final Logger log = LoggerFactory.getLogger(AlertFile.class);

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * How long the synchronous path waits for a lock another process holds before the
     * apply is tried again.
     */
    static final Duration LOCK_TIMEOUT = Duration.ofSeconds(10);

    /**
     * Longer than any alert line (a host name is at most 253 characters): a longer tail
     * is no torn alert.
     */
    private static final int MAX_TORN_LINE = 4096;

    /** How often a held file lock is tried again. */
    private static final Duration LOCK_POLL = Duration.ofMillis(20);

    /** One entry per alert file this process writes (a handful). */
    private static final Map<Path, Object> FILE_LOCKS = new ConcurrentHashMap<>();

    private AlertFile() {
    }

    /**
     * Appends the alert's line at the end (not synced: see {@link GroupFsync}); on
     * failure cuts the file back to its length.
     * @return the file's length after the line
     */
    static long append(FileChannel channel, BruteForceAlert alert) throws IOException {
        ByteBuffer line = ByteBuffer
            .wrap((JSON.writeValueAsString(alert.fields()) + "\n").getBytes(StandardCharsets.UTF_8));
        long size = channel.size();
        try {
            long position = size;
            while (line.hasRemaining()) {
                position += channel.write(line, position);
            }
            return position;
        }
        catch (IOException e) {
            // Never leave half a line for the next append to glue onto (a full disk, for
            // example).
            try {
                channel.truncate(size);
            }
            catch (IOException undo) {
                e.addSuppressed(undo);
            }
            throw e;
        }
    }

    /**
     * Takes the exclusive lock on the alert file, waiting while another process holds it
     * (one paused in the middle of its write holds it until it resumes).
     * @param channel the file, open for writing
     * @param file its path, for messages
     * @param alert the alert about to be written, for messages
     * @return the lock
     * @throws KeyValueState.StateUnavailableException when it is still held after 10 s:
     * the apply is tried again, without spending a delivery
     * @throws IOException when the lock cannot be taken
     */
    static FileLock lock(FileChannel channel, Path file, BruteForceAlert alert) throws IOException {
        long deadline = System.nanoTime() + LOCK_TIMEOUT.toNanos();
        while (true) {
            FileLock lock = channel.tryLock();
            if (lock != null) {
                return lock;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new KeyValueState.StateUnavailableException("alert file " + file + " is still locked by another "
                        + "process after " + LOCK_TIMEOUT.toSeconds() + " s (one paused while writing); alert "
                        + alert.id() + " is written once it is released", null);
            }
            try {
                Thread.sleep(LOCK_POLL.toMillis());
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new KeyValueState.StateUnavailableException("interrupted while waiting for the lock of " + file,
                        e);
            }
        }
    }

    /**
     * A file lock is held by the whole process, and a second lock on it from the same
     * process fails: the sinks of one process writing the same file (two placements
     * during a move, tests) take turns on this object first.
     */
    static Object lockOf(Path file) {
        return FILE_LOCKS.computeIfAbsent(file.toAbsolutePath().normalize(), path -> new Object());
    }

    /**
     * @return the file's bytes from {@code from} to its end
     * @throws IOException when it cannot be read or holds more than 2 GiB after
     * {@code from}
     */
    static byte[] readFrom(FileChannel channel, long from) throws IOException {
        long size = channel.size() - from;
        if (size > Integer.MAX_VALUE - 8) {
            throw new IOException("the file holds " + size + " bytes, more than an alert file can");
        }
        ByteBuffer buffer = ByteBuffer.allocate((int) Math.max(0, size));
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, from + buffer.position()) < 0) {
                break;
            }
        }
        return buffer.array();
    }

    /**
     * Cuts a last line a crash left half written, and syncs; refuses to when it cannot be
     * the start of an alert line.
     * @throws IllegalStateException when the tail is not the start of an alert (the file
     * is not an alert file)
     */
    static void cutTornLine(FileChannel channel, Path file, int complete, int length, byte first) throws IOException {
        if (first != '{' || length > MAX_TORN_LINE) {
            throw new IllegalStateException("alert file " + file + " ends with " + length + " bytes without a "
                    + "newline that are not the start of an alert; fix or move the file");
        }
        log.warn("alert file {} ends with an incomplete line of {} bytes, left by a crash during a write: removing "
                + "it; its alert is written again when its unacked input is redelivered", file, length);
        channel.truncate(complete);
        channel.force(false);
    }

    /**
     * @return the length of the bytes up to and with the last newline
     */
    static int lengthOfCompleteLines(byte[] bytes) {
        int end = bytes.length;
        while (end > 0 && bytes[end - 1] != '\n') {
            end--;
        }
        return end;
    }

    /**
     * @param content complete lines of an alert file
     * @param file its path, for messages
     * @return the ids of the alerts they hold ({@link BruteForceAlert#id()})
     * @throws IllegalStateException when a line is not an alert, naming the file and line
     */
    static List<String> alertIds(String content, Path file) {
        List<String> lines = content.lines().toList();
        List<String> ids = new ArrayList<>(lines.size());
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).isBlank()) {
                continue;
            }
            try {
                Map<String, Object> fields = JSON.readValue(lines.get(i), new TypeReference<>() {
                });
                ids.add(BruteForceAlert.fromEvent(new Event(SshEvents.BRUTE_FORCE_SUSPECTED, null, fields)).id());
            }
            catch (IOException | IllegalArgumentException e) {
                throw new IllegalStateException("alert file " + file + " line " + (i + 1) + " is not an alert "
                        + "{\"src_ip\",\"window_start\",\"failures\"}: " + e.getMessage() + "; fix or move the file",
                        e);
            }
        }
        return ids;
    }

}
