package io.varpulis.demo;

import io.varpulis.support.DaemonThreads;

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

/**
 * A group commit of appends to one file: {@link #request()}, made after an append returned, gives a future that
 * completes when an {@code fdatasync} of the file that started after the request has returned, so every byte written
 * before the request is on disk. The appends that wait meanwhile share the next sync: one {@code fdatasync} for many
 * alert lines instead of one each (issue 27: the per-line sync bounded the main job).
 * <p>Linux syncs a file's dirty pages whichever descriptor wrote them, so the sync runs on a descriptor of its own.
 * Once a sync fails, every later request fails too: after a failed {@code fdatasync} the kernel may have dropped the
 * dirty pages, so nothing appended since may be called stored (the process must be restarted, and the unacked alerts
 * are written again from their claims).
 */
final class GroupFsync {

    /** One per file this process appends to. */
    private static final Map<Path, GroupFsync> FILES = new ConcurrentHashMap<>();
    private static final Executor SYNC = Executors.newCachedThreadPool(DaemonThreads.named("varpulis-alert-fsync"));

    private final Path file;
    // Guarded by this.
    private CompletableFuture<Void> next;
    private boolean syncing;
    private IOException failed;

    private GroupFsync(Path file) {
        this.file = file;
    }

    /**
     * @param file a file
     * @return its group commit in this process
     */
    static GroupFsync of(Path file) {
        return FILES.computeIfAbsent(file.toAbsolutePath().normalize(), GroupFsync::new);
    }

    /**
     * @return completes once everything written to the file before this call is on disk; exceptionally with the
     * {@link IOException} of the sync that could not do it (or of an earlier failed one)
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

    /** Syncs while requests wait, each round covering every request made before it started. */
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
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                // fdatasync: the bytes and the new length, which is all a reader of the file needs.
                channel.force(false);
                round.complete(null);
            } catch (IOException e) {
                CompletableFuture<Void> waiting;
                synchronized (this) {
                    failed = new IOException("fdatasync of " + file + " failed; no later alert line is called "
                            + "stored in this process (restart it: the unacked alerts are written again)", e);
                    waiting = next;
                    next = null;
                    syncing = false;
                }
                round.completeExceptionally(failed);
                if (waiting != null) {
                    waiting.completeExceptionally(failed);
                }
                return;
            }
        }
    }
}
