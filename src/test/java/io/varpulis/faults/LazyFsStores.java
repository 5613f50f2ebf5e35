package io.varpulis.faults;

import io.varpulis.test.Processes;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Directories each on a LazyFS mount of its own (https://github.com/dsrhaslab/lazyfs, the
 * FUSE file system Jepsen uses to lose what was not fsynced): what a process writes there
 * stays in LazyFS's own page cache until it is fsynced, and the fifo command
 * {@code lazyfs::clear-cache} drops what was not, as a power loss drops the page cache of
 * a machine. File creations, renames and removals reach the disk below at once; the data
 * of a file only when synced (a file written and never synced comes back empty).
 * <p>
 * LazyFS reports no free space (its {@code statfs} answers 0 blocks): a nats-server
 * storing there needs {@code max_file_store} set, or JetStream has no storage and refuses
 * placement.
 * <p>
 * The binary is {@code VARPULIS_LAZYFS}, else the build of
 * {@code scripts/install-lazyfs.sh} in its cache. Everything is undone at
 * {@link #close()}: the processes writing there stopped first (the given action), the
 * mounts unmounted, LazyFS's processes gone, the disk below deleted.
 */
final class LazyFsStores implements AutoCloseable {

    /** The version {@code scripts/install-lazyfs.sh} builds by default. */
    static final String VERSION = "0.3.0";

    /** The prefix of this class's temp dirs (scripts/faults.sh unmounts leftovers). */
    static final String ROOT_PREFIX = "faults-lazyfs-";

    /** What LazyFS logs once a clear-cache command is done. */
    private static final String CLEARED = "cache is cleared.";

    private static final Duration MOUNTED_WITHIN = Duration.ofSeconds(20);

    private static final Duration CLEARED_WITHIN = Duration.ofSeconds(20);

    private final Path binary;

    private final List<Path> mounts;

    private final Runnable beforeUnmount;

    private final Path root;

    private final List<Process> processes = new ArrayList<>();

    /**
     * @param mounts where each mount goes (created when absent)
     * @param cacheMegabytes LazyFS's cache of each mount: what is written and not yet
     * synced must fit
     * @param beforeUnmount stops what writes there (the servers), run at {@link #close()}
     */
    LazyFsStores(List<Path> mounts, int cacheMegabytes, Runnable beforeUnmount) throws IOException {
        this.binary = binary();
        this.mounts = List.copyOf(mounts);
        this.beforeUnmount = beforeUnmount;
        this.root = Files.createTempDirectory(ROOT_PREFIX);
        for (int i = 0; i < this.mounts.size(); i++) {
            Files.createDirectories(below(i));
            Files.writeString(config(i), """
                    [faults]
                    fifo_path="%s"
                    [cache]
                    apply_eviction=false
                    [cache.simple]
                    custom_size="%dmb"
                    blocks_per_page=1
                    [filesystem]
                    log_all_operations=false
                    logfile="%s"
                    """.formatted(fifo(i), cacheMegabytes, log(i)));
        }
    }

    /**
     * @return the LazyFS binary: {@code VARPULIS_LAZYFS}, else
     * {@code scripts/install-lazyfs.sh}'s build
     * @throws IllegalStateException when there is none, naming the script
     */
    static Path binary() {
        String set = System.getenv("VARPULIS_LAZYFS");
        String cache = System.getenv("XDG_CACHE_HOME") != null ? System.getenv("XDG_CACHE_HOME")
                : System.getProperty("user.home") + "/.cache";
        Path binary = set != null && !set.isBlank() ? Path.of(set)
                : Path.of(cache, "varpulis", "lazyfs", VERSION, "lazyfs", "lazyfs", "build", "lazyfs");
        if (!Files.isExecutable(binary)) {
            throw new IllegalStateException("no LazyFS at " + binary + ": run scripts/install-lazyfs.sh (it builds it "
                    + "from source), or set VARPULIS_LAZYFS to its binary");
        }
        return binary;
    }

    /**
     * Mounts every directory and waits until each is a LazyFS mount.
     */
    void mount() throws Exception {
        for (int i = 0; i < mounts.size(); i++) {
            Files.createDirectories(mounts.get(i));
            processes.add(new ProcessBuilder(binary.toString(), mounts.get(i).toString(), "--config-path",
                    config(i).toString(), "-o", "allow_other", "-o", "modules=subdir", "-o", "subdir=" + below(i), "-f")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(root.resolve("lazyfs-" + i + ".out").toFile()))
                .start());
        }
        long deadline = System.nanoTime() + MOUNTED_WITHIN.toNanos();
        for (int i = 0; i < mounts.size(); i++) {
            while (!mounted(mounts.get(i))) {
                if (!processes.get(i).isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("LazyFS did not mount " + mounts.get(i) + " within "
                            + MOUNTED_WITHIN.toSeconds() + " s; see " + root.resolve("lazyfs-" + i + ".out"));
                }
                Thread.sleep(100);
            }
        }
    }

    /**
     * Drops every mount's unsynced data at once (one thread per mount) and waits until
     * each LazyFS says it is done.
     * @return how long it took, ms
     */
    long clearCaches() throws Exception {
        long started = System.nanoTime();
        List<CompletableFuture<Void>> clears = new ArrayList<>();
        for (int i = 0; i < mounts.size(); i++) {
            int index = i;
            clears.add(CompletableFuture.runAsync(() -> clear(index)));
        }
        for (CompletableFuture<Void> clear : clears) {
            clear.get(CLEARED_WITHIN.toSeconds() + 5, TimeUnit.SECONDS);
        }
        return (System.nanoTime() - started) / 1_000_000;
    }

    private void clear(int index) {
        try {
            long before = cleared(index);
            // The fifo's reader takes one command per read: one write per command.
            try (OutputStream fifo = Files.newOutputStream(fifo(index))) {
                fifo.write("lazyfs::clear-cache\n".getBytes(StandardCharsets.US_ASCII));
            }
            long deadline = System.nanoTime() + CLEARED_WITHIN.toNanos();
            while (cleared(index) <= before) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("LazyFS of " + mounts.get(index) + " did not clear its cache "
                            + "within " + CLEARED_WITHIN.toSeconds() + " s; see " + log(index));
                }
                Thread.sleep(20);
            }
        }
        catch (IOException e) {
            throw new IllegalStateException("cannot clear LazyFS's cache of " + mounts.get(index) + ": " + e, e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * @param index a mount, 0-based
     * @return bytes of the files under it as the disk below holds them (what survives a
     * clear)
     */
    long bytesBelow(int index) {
        return bytes(below(index));
    }

    /**
     * @param index a mount, 0-based
     * @return bytes of the files under it as its processes see them (synced or not)
     */
    long bytesSeen(int index) {
        return bytes(mounts.get(index));
    }

    private static long bytes(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> {
                try {
                    return Files.size(f);
                }
                catch (IOException gone) {
                    return 0;
                }
            }).sum();
        }
        catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private long cleared(int index) throws IOException {
        String text = LoopbackCluster.read(log(index));
        return Stream.iterate(text.indexOf(CLEARED), i -> i >= 0, i -> text.indexOf(CLEARED, i + 1)).count();
    }

    private Path below(int index) {
        return root.resolve("below-" + index);
    }

    private Path config(int index) {
        return root.resolve("lazyfs-" + index + ".toml");
    }

    private Path fifo(int index) {
        return root.resolve("faults-" + index + ".fifo");
    }

    private Path log(int index) {
        return root.resolve("lazyfs-" + index + ".log");
    }

    /**
     * @return whether the directory is a LazyFS mount now ({@code /proc/self/mountinfo})
     */
    static boolean mounted(Path dir) throws IOException {
        String target = dir.toAbsolutePath().toString();
        for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"), StandardCharsets.UTF_8)) {
            String[] fields = line.split(" ");
            int separator = List.of(fields).indexOf("-");
            if (fields.length > 4 && fields[4].equals(target) && separator > 0 && separator + 1 < fields.length
                    && fields[separator + 1].equals("fuse.lazyfs")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Stops what writes there, unmounts, stops LazyFS, deletes the disk below.
     */
    @Override
    public void close() throws Exception {
        beforeUnmount.run();
        for (int i = 0; i < processes.size(); i++) {
            Path mount = mounts.get(i);
            if (mounted(mount)) {
                try {
                    Tools.run(List.of("fusermount3", "-u", mount.toString()));
                }
                catch (IllegalStateException busy) {
                    Tools.run(List.of("fusermount3", "-uz", mount.toString()));
                }
            }
            Process process = processes.get(i);
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                Processes.kill(process);
            }
        }
        processes.clear();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }

}
