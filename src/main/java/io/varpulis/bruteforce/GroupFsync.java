package io.varpulis.bruteforce;

import io.varpulis.support.DaemonThreads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

/**
 * A group commit of appends to one file: {@link #request()}, made after an append
 * returned, gives a future that completes when an {@code fdatasync} of the file that
 * started after the request has returned, so every byte written before the request is on
 * disk. The appends that wait meanwhile share the next sync: one {@code fdatasync} for
 * many alert lines instead of one each (issue 27: the per-line sync bounded the main
 * job).
 * <p>
 * Linux syncs a file's dirty pages whichever descriptor wrote them, so the sync runs on a
 * descriptor of its own. Once a sync fails, every later request fails too: after a failed
 * {@code fdatasync} the kernel may have marked the dirty pages clean without writing
 * them, so no later sync can prove a line stored. The process then halts (exit status
 * {@value #EXIT_STATUS}, EX_IOERR; PostgreSQL's answer to the same kernel behaviour), as
 * a kill -9 would stop it: its unacked alerts are redelivered to another placement, or to
 * it once restarted, and written and synced there. Without the halt every later alert
 * would be nak'ed until max_deliver and parked though valid.
 */
final class GroupFsync {

    /** The exit status of a process halted by a failed sync: EX_IOERR of sysexits.h. */
    static final int EXIT_STATUS = 74;

    private static final Logger log = LoggerFactory.getLogger(GroupFsync.class);

    /** One per file this process appends to. */
    private static final Map<Path, GroupFsync> FILES = new ConcurrentHashMap<>();

    private static final Executor SYNC = Executors.newCachedThreadPool(DaemonThreads.named("varpulis-alert-fsync"));

    private final Path file;

    private final Consumer<IOException> onFailure;

    // Guarded by this.
    private CompletableFuture<Void> next;

    private boolean syncing;

    private IOException failed;

    private GroupFsync(Path file, Consumer<IOException> onFailure) {
        this.file = file;
        this.onFailure = onFailure;
    }

    /**
     * @param file a file
     * @return its group commit in this process; a failed sync halts the process
     */
    static GroupFsync of(Path file) {
        return of(file, GroupFsync::halt);
    }

    /**
     * @param file a file
     * @param onFailure what a failed sync does once its requests failed (tests: record it
     * instead of halting)
     * @return its group commit in this process (the first caller's {@code onFailure}
     * stays)
     */
    static GroupFsync of(Path file, Consumer<IOException> onFailure) {
        return FILES.computeIfAbsent(file.toAbsolutePath().normalize(), path -> new GroupFsync(path, onFailure));
    }

    private static void halt(IOException failure) {
        log.error("{}: this process halts now (exit status {}) so that the alerts it has not acked are redelivered "
                + "and written again by a process whose syncs succeed; free or repair the disk and start it again",
                failure.getMessage(), EXIT_STATUS, failure);
        Runtime.getRuntime().halt(EXIT_STATUS);
    }

    /**
     * @return completes once everything written to the file before this call is on disk;
     * exceptionally with the {@link IOException} of the sync that could not do it (or of
     * an earlier failed one)
     */
    synchronized CompletableFuture<Void> request() {
        if (failed != null) {
            return CompletableFuture.failedFuture(failed);
        }
        if (next == null) {
            next = new CompletableFuture<>();
        }
        CompletableFuture<Void> round = next;
        if (!syncing) {
            syncing = true;
            SYNC.execute(this::syncRounds);
        }
        return round;
    }

    /**
     * Syncs while requests wait, each round covering every request made before it
     * started.
     */
    private void syncRounds() {
        while (true) {
            CompletableFuture<Void> round;
            synchronized (this) {
                round = next;
                next = null;
                if (round == null) {
                    syncing = false;
                    return;
                }
            }
            FileChannel channel;
            try {
                channel = FileChannel.open(file, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
            }
            catch (IOException | RuntimeException e) {
                // The file is gone (deleted, moved): its lines are not stored, but
                // nothing says a sync lied. The
                // round fails, its alerts are nak'ed and written again (the sink sees the
                // file shrink), and a later
                // round syncs the new file.
                round.completeExceptionally(new IOException("cannot open " + file + " to sync it: " + e, e));
                continue;
            }
            try (channel) {
                // fdatasync: the bytes and the new length, which is all a reader of the
                // file needs.
                channel.force(false);
                round.complete(null);
            }
            catch (IOException | RuntimeException | Error e) {
                // Any failure, not only an I/O one: a round left uncompleted would keep
                // its deliveries in progress
                // for ever.
                CompletableFuture<Void> waiting;
                synchronized (this) {
                    failed = new IOException("fdatasync of " + file + " failed; no later alert line is called "
                            + "stored in this process", e);
                    waiting = next;
                    next = null;
                    syncing = false;
                }
                round.completeExceptionally(failed);
                if (waiting != null) {
                    waiting.completeExceptionally(failed);
                }
                onFailure.accept(failed);
                return;
            }
        }
    }

}
