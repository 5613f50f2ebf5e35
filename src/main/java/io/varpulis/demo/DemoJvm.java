package io.varpulis.demo;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The demo's own JVM: it feeds the log and reads the report, a short run like its nodes',
 * so it runs with the nodes' JIT and collector choice (C1 only, serial collector;
 * {@link NodeProcess}). {@code java -jar ... demo} therefore starts the demo in a child
 * JVM with {@code -XX:TieredStopAtLevel=1 -XX:+UseSerialGC} (the latter only when no
 * collector was chosen) before the flags it was given itself, and waits for it: on this
 * project's 2-core machines the feeder's C2 compilations took CPU from the nodes while
 * they processed the log (issue 27: the main job 15-25 % slower end to end,
 * BENCHMARKS.md).
 * <p>
 * Not relaunched: when the JVM was given a tiered-compilation flag itself
 * ({@code -XX:TieredStopAtLevel=...}, {@code -XX:-TieredCompilation}: the user chose) or
 * something a second JVM would take from the first (an agent, a debugger or JMX port, a
 * flight recording or log file), when {@value #RELAUNCH_VARIABLE} is {@code false}, and
 * in the child. {@code JAVA_TOOL_OPTIONS} and {@code JDK_JAVA_OPTIONS} are not passed on
 * in the environment (their flags are on the child's command line already). The child
 * gets the parent's arguments, standard streams and exit status; a parent stopped by a
 * signal stops the child (SIGTERM, then SIGKILL after {@link #STOP_GRACE_SECONDS} s), and
 * a child whose parent disappeared (SIGKILL) stops itself, so the demo's clean-up of its
 * nodes runs either way.
 */
final class DemoJvm {

    /** {@code false} keeps the demo in the JVM it was started in. */
    static final String RELAUNCH_VARIABLE = "VARPULIS_DEMO_RELAUNCH";

    /** Set on the child: the parent's process id. */
    static final String PARENT_PROPERTY = "varpulis.demo.parent-pid";

    /**
     * How long a stopped parent waits for the child's clean-up before killing it,
     * seconds.
     */
    static final int STOP_GRACE_SECONDS = 60;

    /** The flags the child gets first (the given ones come after, and so win). */
    static final List<String> FLAGS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    private DemoJvm() {
    }

    /**
     * @param jvmArguments this JVM's own flags
     * ({@code RuntimeMXBean.getInputArguments()})
     * @param env the environment
     * @param child whether this JVM is a relaunched demo already
     * @return whether the demo should run in a child JVM with {@link #FLAGS}
     */
    static boolean relaunches(List<String> jvmArguments, Map<String, String> env, boolean child) {
        if (child || "false".equalsIgnoreCase(env.getOrDefault(RELAUNCH_VARIABLE, "true").trim())) {
            return false;
        }
        return jvmArguments.stream().noneMatch(DemoJvm::keepsTheDemoHere);
    }

    /**
     * A flag that says the user set this JVM up themselves: a tiered-compilation choice,
     * or something a second JVM would take from the first (a debugger or JMX port, an
     * agent, a flight recording or log file written at exit).
     */
    private static boolean keepsTheDemoHere(String flag) {
        return flag.startsWith("-XX:TieredStopAtLevel") || flag.equals("-XX:-TieredCompilation")
                || flag.equals("-XX:+TieredCompilation") || flag.startsWith("-agentlib")
                || flag.startsWith("-agentpath") || flag.startsWith("-javaagent")
                || flag.startsWith("-XX:StartFlightRecording") || flag.startsWith("-XX:FlightRecorderOptions")
                || flag.startsWith("-Xlog") || flag.startsWith("-Xrunjdwp")
                || flag.startsWith("-Dcom.sun.management.jmxremote");
    }

    /**
     * @return whether this JVM runs the demo for a parent that relaunched it
     */
    static boolean isChild() {
        return System.getProperty(PARENT_PROPERTY) != null;
    }

    /**
     * Runs {@code demo args} in a child JVM with {@link #FLAGS} and waits for it.
     * @param args the demo's arguments
     * @return the child's exit status
     * @throws Exception when the child cannot be started (the caller then runs the demo
     * here)
     */
    static int relaunch(String[] args) throws Exception {
        List<String> command = command(ManagementFactory.getRuntimeMXBean().getInputArguments(),
                System.getProperty("java.home"), System.getProperty("java.class.path"), ProcessHandle.current().pid(),
                args);
        ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
        // Their flags are in this JVM's input arguments, which the child gets on its
        // command line: not twice.
        builder.environment().remove("JAVA_TOOL_OPTIONS");
        builder.environment().remove("JDK_JAVA_OPTIONS");
        Process child = builder.start();
        Thread stop = new Thread(() -> stop(child), "varpulis-demo-stop-child");
        Runtime.getRuntime().addShutdownHook(stop);
        int status = child.waitFor();
        try {
            Runtime.getRuntime().removeShutdownHook(stop);
        }
        catch (IllegalStateException shuttingDown) {
            // The hook runs: it waits for the child, which has ended.
        }
        return status;
    }

    /**
     * @param jvmArguments this JVM's flags, passed on after {@link #FLAGS}
     * @param javaHome {@code java.home}
     * @param classPath {@code java.class.path}: one jar ({@code -jar}) or a class path
     * @param parentPid this process's id
     * @param args the demo's arguments
     * @return the child's command line
     */
    static List<String> command(List<String> jvmArguments, String javaHome, String classPath, long parentPid,
            String[] args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(javaHome, "bin", "java").toString());
        command.add(FLAGS.get(0));
        if (jvmArguments.stream().noneMatch(flag -> flag.matches("-XX:\\+Use\\w+GC"))) {
            // A collector of the user's wins: the JVM refuses two.
            command.add(FLAGS.get(1));
        }
        command.addAll(jvmArguments);
        command.add("-D" + PARENT_PROPERTY + "=" + parentPid);
        if (!classPath.contains(File.pathSeparator) && classPath.endsWith(".jar")) {
            command.addAll(List.of("-jar", classPath));
        }
        else {
            command.addAll(List.of("-cp", classPath, "io.varpulis.VarpulisClusterApplication"));
        }
        command.add("demo");
        command.addAll(List.of(args));
        return command;
    }

    /**
     * In the child: stops this JVM (its shutdown hooks clean the demo's nodes up) once
     * the parent is gone, checked every second on a daemon thread.
     */
    static void exitWithParent() {
        String parentPid = System.getProperty(PARENT_PROPERTY);
        if (parentPid == null) {
            return;
        }
        // Gone already when this JVM looks (or a process under another id): the demo does
        // not start without it.
        Optional<ProcessHandle> parent = ProcessHandle.current()
            .parent()
            .filter(handle -> String.valueOf(handle.pid()).equals(parentPid.trim()));
        if (parent.isEmpty() || !parent.get().isAlive()) {
            System.err.println("the demo's parent process is gone: not starting the demo");
            System.exit(130);
        }
        Thread watch = new Thread(() -> {
            try {
                while (parent.get().isAlive()) {
                    TimeUnit.SECONDS.sleep(1);
                }
                System.err.println("the demo's parent process is gone: stopping the demo and its nodes");
                System.exit(130);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "varpulis-demo-parent-watch");
        watch.setDaemon(true);
        watch.start();
    }

    private static void stop(Process child) {
        if (!child.isAlive()) {
            return;
        }
        child.destroy();
        try {
            if (!child.waitFor(STOP_GRACE_SECONDS, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        }
        catch (InterruptedException e) {
            child.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

}
