package com.example.orders;

import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.RuntimeMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The file both consumers write, one line an order, and the clock both are timed by, the same code in both JVMs:
 * from the moment the first order is in hand, decoded (the first {@link #write}), to the moment the line of the
 * {@code expected}-th is written (buffered, not flushed; its ack comes after, as every earlier order's did). Then it
 * writes what it measured to the result file ({@code key=value} lines, written whole: the harness reads it once it
 * exists) and flushes the lines: neither is timed.
 * <p>
 * With {@code orders.threads=true} (a diagnosis, never in a timed comparison: reading /proc takes milliseconds
 * inside the window) it also records each thread's CPU over the window, JIT compiler and GC threads included.
 */
public final class OrderFile implements Closeable {

    private final BufferedWriter out;

    private final int expected;

    private final Path result;

    private final boolean threads = Boolean.getBoolean("orders.threads");

    private final RuntimeMXBean runtime = ManagementFactory.getRuntimeMXBean();

    private final com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory
        .getOperatingSystemMXBean();

    private int lines;

    private long firstNanos;

    private long firstCpuNanos;

    private long uptimeAtFirstMillis;

    private long firstEpochMillis;

    private Map<String, Long> firstThreads;

    /**
     * @param file the orders' lines
     * @param expected how many orders make the run
     * @param result where the run's figures go once the last is written
     * @throws IOException when the file cannot be created
     */
    public OrderFile(Path file, int expected, Path result) throws IOException {
        this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        this.expected = expected;
        this.result = result;
    }

    /**
     * Writes the order's line: {@code orderId,customer,sku,quantity,amount,placedAt}.
     * @param order a decoded order
     */
    public synchronized void write(Order order) {
        if (lines == 0) {
            firstNanos = System.nanoTime();
            firstCpuNanos = os.getProcessCpuTime();
            uptimeAtFirstMillis = runtime.getUptime();
            firstEpochMillis = System.currentTimeMillis();
            firstThreads = threads ? threadCpu() : Map.of();
        }
        try {
            out.write(order.orderId() + ',' + order.customer() + ',' + order.sku() + ',' + order.quantity() + ','
                    + order.amount().toPlainString() + ',' + order.placedAt());
            out.newLine();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (++lines == expected) {
            long lastNanos = System.nanoTime();
            long lastCpuNanos = os.getProcessCpuTime();
            report(lastNanos - firstNanos, lastCpuNanos - firstCpuNanos);
        }
    }

    private void report(long windowNanos, long cpuNanos) {
        StringBuilder text = new StringBuilder();
        text.append("messages=").append(expected).append('\n');
        text.append("window_nanos=").append(windowNanos).append('\n');
        text.append("cpu_nanos=").append(cpuNanos).append('\n');
        text.append("uptime_at_first_millis=").append(uptimeAtFirstMillis).append('\n');
        // Where the window lies for a profile of the whole process (a recording's timestamps).
        text.append("first_epoch_millis=").append(firstEpochMillis).append('\n');
        text.append("last_epoch_millis=").append(System.currentTimeMillis()).append('\n');
        if (threads) {
            Map<String, Long> last = threadCpu();
            last.forEach((thread, nanos) -> {
                long spent = nanos - firstThreads.getOrDefault(thread, 0L);
                if (spent > 0) {
                    text.append("thread.").append(thread).append('=').append(spent).append('\n');
                }
            });
        }
        try {
            out.flush();
            Path partial = result.resolveSibling(result.getFileName() + ".partial");
            Files.writeString(partial, text);
            Files.move(partial, result, StandardCopyOption.ATOMIC_MOVE);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @return CPU time on each thread of this process so far, ns ({@code /proc/self/task/TID/schedstat}), by
     * {@code name#tid}
     */
    private static Map<String, Long> threadCpu() {
        Map<String, Long> cpu = new TreeMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            tasks.forEach(task -> {
                try {
                    String name = Files.readString(task.resolve("comm")).trim().replaceAll("[^A-Za-z0-9_.-]", "_");
                    long nanos = Long.parseLong(Files.readString(task.resolve("schedstat")).split(" ")[0]);
                    cpu.put(name + "#" + task.getFileName(), nanos);
                }
                catch (IOException | RuntimeException gone) {
                    // The thread ended meanwhile.
                }
            });
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return cpu;
    }

    /**
     * @return lines written so far
     */
    public synchronized int lines() {
        return lines;
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }

}
