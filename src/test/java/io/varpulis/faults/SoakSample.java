package io.varpulis.faults;

import java.util.Locale;

/**
 * One sample of one node process in a soak ({@link ProcessSampler}), a line of its CSV.
 *
 * @param minute when, minutes since the job began streaming
 * @param node the node's short name ({@code coordinator}, {@code worker-2}, {@code demo}
 * for the demo's feeder JVM)
 * @param pid the process id: a restarted node is a new pid, so a new series
 * @param startMinute when that process started, minutes since the job began streaming
 * (negative for the nodes started before it)
 * @param rssKb resident memory ({@code VmRSS} of {@code /proc/PID/status}), kB
 * @param threads threads ({@code Threads} of {@code /proc/PID/status})
 * @param fds open file descriptors (entries of {@code /proc/PID/fd})
 * @param heapKb heap used right after a full collection the sampler asked for
 * ({@code jcmd PID GC.run}, then {@code GC.heap_info}: the generations' used sizes), kB;
 * -1 in the samples where it was not measured
 */
record SoakSample(double minute, String node, long pid, double startMinute, long rssKb, int threads, int fds,
        long heapKb) {

    /** The CSV's first line. */
    static final String HEADER = "minute,node,pid,start_minute,rss_kb,threads,fds,heap_after_gc_kb";

    /**
     * @return the series this sample belongs to: {@code node@pid}
     */
    String series() {
        return node + "@" + pid;
    }

    /**
     * @return the CSV line (heap empty where not measured)
     */
    String csv() {
        return String.format(Locale.ROOT, "%.3f,%s,%d,%.3f,%d,%d,%d,%s", minute, node, pid, startMinute, rssKb, threads,
                fds, heapKb < 0 ? "" : String.valueOf(heapKb));
    }

    /**
     * @param line a line written by {@link #csv()}
     * @return the sample
     * @throws IllegalArgumentException when the line is not one
     */
    static SoakSample parse(String line) {
        String[] f = line.split(",", -1);
        if (f.length != 8) {
            throw new IllegalArgumentException("not a soak sample: '" + line + "'");
        }
        return new SoakSample(Double.parseDouble(f[0]), f[1], Long.parseLong(f[2]), Double.parseDouble(f[3]),
                Long.parseLong(f[4]), Integer.parseInt(f[5]), Integer.parseInt(f[6]),
                f[7].isEmpty() ? -1 : Long.parseLong(f[7]));
    }

}
