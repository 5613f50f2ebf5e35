package io.varpulis.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The soak's sampler (issue 43): every {@link #EVERY} it reads, for each node process it
 * tracks, the resident memory and threads from {@code /proc/PID/status} and the open file
 * descriptors from {@code /proc/PID/fd}, and appends a line per process to a CSV
 * ({@link SoakSample#HEADER}). Each tick, one process in turn (so each about once a
 * minute with six) is also asked for a full collection and its heap's size after it
 * ({@code jcmd PID -f} with {@code GC.run} and {@code GC.heap_info}: what a JVM gives
 * honestly as its live heap; Actuator's {@code jvm.gc.live.data.size} is only updated by
 * an old-generation collection, which a serial collector in 256 MB runs seldom, so it
 * goes stale). The attach adds one thread to each JVM once ({@code Attach Listener}); a
 * full collection of a node's heap takes tens of milliseconds.
 */
final class ProcessSampler implements AutoCloseable {

    /** How often every process is sampled. */
    static final Duration EVERY = Duration.ofSeconds(10);

    private static final Pattern RSS = Pattern.compile("VmRSS:\\s+(\\d+) kB");

    private static final Pattern THREADS = Pattern.compile("Threads:\\s+(\\d+)");

    private static final Pattern GENERATION_USED = Pattern.compile("(?:generation|heap)\\s+total \\d+K, used (\\d+)K");

    private final Path csv;

    private final Path jcmdCommands;

    private final long t0;

    private final Map<String, Long> tracked = new LinkedHashMap<>();

    private final Map<Long, Long> heapKb = new LinkedHashMap<>();

    private final List<SoakSample> samples = new ArrayList<>();

    private final Thread thread;

    private int nextHeap;

    private volatile boolean closed;

    /**
     * @param csv the CSV written (created, with its header)
     * @param t0 {@link System#nanoTime()} when the job began streaming: minute 0
     */
    ProcessSampler(Path csv, long t0) throws IOException {
        this.csv = csv;
        this.t0 = t0;
        this.jcmdCommands = csv.resolveSibling("jcmd-gc.txt");
        Files.writeString(jcmdCommands, "GC.run\nGC.heap_info\n");
        Files.writeString(csv, SoakSample.HEADER + "\n");
        this.thread = new Thread(this::run, "soak-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Samples a node's process from the next tick on, instead of the one it had.
     * @param node its short name
     * @param pid its process id
     */
    synchronized void track(String node, long pid) {
        tracked.put(node, pid);
    }

    /**
     * Stops sampling a node (killed, not started again yet).
     * @param node its short name
     */
    synchronized void untrack(String node) {
        tracked.remove(node);
    }

    /**
     * @return the samples so far
     */
    synchronized List<SoakSample> samples() {
        return List.copyOf(samples);
    }

    private void run() {
        long next = System.nanoTime();
        while (!closed) {
            Map<String, Long> now;
            long heapPid = -1;
            synchronized (this) {
                now = new LinkedHashMap<>(tracked);
                if (!now.isEmpty()) {
                    heapPid = List.copyOf(now.values()).get(nextHeap++ % now.size());
                }
            }
            if (heapPid > 0) {
                long heap = heapAfterGc(heapPid);
                synchronized (this) {
                    heapKb.put(heapPid, heap);
                }
            }
            double minute = minutesSince(System.nanoTime());
            List<String> lines = new ArrayList<>();
            for (Map.Entry<String, Long> node : now.entrySet()) {
                sample(minute, node.getKey(), node.getValue()).ifPresent(sample -> {
                    synchronized (this) {
                        samples.add(sample);
                    }
                    lines.add(sample.csv());
                });
            }
            try {
                Files.write(csv, lines, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
                next += EVERY.toNanos();
                while (!closed && System.nanoTime() < next) {
                    Thread.sleep(100);
                }
            }
            catch (IOException e) {
                System.err.println("soak: cannot write " + csv + ": " + e);
            }
            catch (InterruptedException e) {
                return;
            }
        }
    }

    private Optional<SoakSample> sample(double minute, String node, long pid) {
        try {
            String status = Files.readString(Path.of("/proc", String.valueOf(pid), "status"));
            long fds;
            try (Stream<Path> entries = Files.list(Path.of("/proc", String.valueOf(pid), "fd"))) {
                fds = entries.count();
            }
            Matcher rss = RSS.matcher(status);
            Matcher threads = THREADS.matcher(status);
            if (!rss.find() || !threads.find()) {
                return Optional.empty();
            }
            long heap;
            synchronized (this) {
                Long measured = heapKb.remove(pid);
                heap = measured == null ? -1 : measured;
            }
            double started = ProcessHandle.of(pid)
                .flatMap(p -> p.info().startInstant())
                .map(this::minutesSince)
                .orElse(minute);
            return Optional.of(new SoakSample(minute, node, pid, started, Long.parseLong(rss.group(1)),
                    Integer.parseInt(threads.group(1)), (int) fds, heap));
        }
        catch (IOException | RuntimeException gone) {
            // The process ended between the ticks (a nemesis killed it).
            return Optional.empty();
        }
    }

    /**
     * @return the heap's used kB after a full collection, -1 when jcmd could not tell (a
     * paused JVM does not answer its attach)
     */
    private long heapAfterGc(long pid) {
        try {
            // Into a file, not a pipe: a paused JVM leaves jcmd waiting, and a pipe's
            // read
            // would wait with it past the timeout.
            Path output = jcmdCommands.resolveSibling("jcmd-gc.out");
            Process jcmd = new ProcessBuilder("jcmd", String.valueOf(pid), "-f", jcmdCommands.toString())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
            if (!jcmd.waitFor(20, TimeUnit.SECONDS) || jcmd.exitValue() != 0) {
                jcmd.destroyForcibly();
                return -1;
            }
            return heapUsedKb(Files.readString(output, StandardCharsets.UTF_8));
        }
        catch (IOException e) {
            return -1;
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /**
     * @param heapInfo {@code jcmd PID GC.heap_info}'s output
     * @return the sum of its generations' (or G1's heap's) used kB, -1 when it names none
     */
    static long heapUsedKb(String heapInfo) {
        Matcher used = GENERATION_USED.matcher(heapInfo);
        long kb = 0;
        boolean any = false;
        while (used.find()) {
            kb += Long.parseLong(used.group(1));
            any = true;
        }
        return any ? kb : -1;
    }

    private double minutesSince(long nanos) {
        return (nanos - t0) / 60e9;
    }

    private double minutesSince(Instant instant) {
        long agoNanos = Duration.between(instant, Instant.now()).toNanos();
        return minutesSince(System.nanoTime() - agoNanos);
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        thread.interrupt();
        thread.join(30_000);
    }

}
