package io.varpulis.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * CPU time from /proc, in clock ticks: the whole machine's, this JVM's, and its child
 * processes' (the nats-server, a bench worker). On a shared 2-core machine a wall-clock
 * figure means little without knowing how much CPU other processes took meanwhile, so
 * each run records the other processes' share ("foreign CPU"), and the CPU this JVM and
 * the server spent per event, which competing load disturbs far less than a rate.
 *
 * @param machineBusy ticks all CPUs spent not idle
 * @param machineAll all ticks of all CPUs
 * @param jvm this JVM's user + system ticks
 * @param children its live child processes' user + system ticks
 */
record CpuUsage(long machineBusy, long machineAll, long jvm, long children) {

    /** Linux's USER_HZ, the unit of /proc/stat and /proc/PID/stat. */
    static final int TICKS_PER_SECOND = 100;

    static CpuUsage now() {
        long[] machine = machine();
        return new CpuUsage(machine[0], machine[1], processTicks(ProcessHandle.current().pid()),
                ProcessHandle.current().children().mapToLong(p -> processTicks(p.pid())).sum());
    }

    /**
     * @param earlier a sample taken before this one
     * @return the share of the machine's CPU that processes other than this JVM and its
     * children took, in percent
     */
    double foreignPercentSince(CpuUsage earlier) {
        long all = machineAll - earlier.machineAll;
        long foreign = (machineBusy - earlier.machineBusy) - (jvm - earlier.jvm) - (children - earlier.children);
        return all <= 0 ? 0 : Math.max(0, 100.0 * foreign / all);
    }

    /**
     * @return this JVM's CPU since {@code earlier}, in microseconds
     */
    double jvmMicrosSince(CpuUsage earlier) {
        return (jvm - earlier.jvm) * 1e6 / TICKS_PER_SECOND;
    }

    /**
     * @return the child processes' CPU since {@code earlier}, in microseconds
     */
    double childrenMicrosSince(CpuUsage earlier) {
        return (children - earlier.children) * 1e6 / TICKS_PER_SECOND;
    }

    /**
     * Waits, up to {@code maxWait}, for a second in which other processes take less than
     * {@code maxForeignPercent} of the machine, so that a run does not start in the
     * middle of somebody else's build.
     * @return the foreign share of the last second waited, in percent
     */
    static double awaitQuiet(double maxForeignPercent, Duration maxWait) throws InterruptedException {
        long deadline = System.nanoTime() + maxWait.toNanos();
        double foreign;
        do {
            CpuUsage before = now();
            Thread.sleep(1000);
            foreign = now().foreignPercentSince(before);
        }
        while (foreign >= maxForeignPercent && System.nanoTime() < deadline);
        return foreign;
    }

    /**
     * @return {busy, all} ticks from the first line of /proc/stat
     */
    private static long[] machine() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long all = 0;
            for (int i = 1; i < f.length && i <= 8; i++) {
                all += Long.parseLong(f[i]);
            }
            long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
            return new long[] { all - idle, all };
        }
        catch (IOException | RuntimeException e) {
            return new long[] { 0, 0 };
        }
    }

    /**
     * @return utime + stime of a process, 0 when it is gone
     */
    private static long processTicks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]);
        }
        catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
