package io.varpulis.demo;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One cluster node run as its own JVM from this application's jar (or classpath, under a
 * test), with its log in a file. Kill it with {@link #kill()} (SIGKILL: no shutdown hook,
 * no drain, no ack) or stop it with {@link #stop()}.
 */
final class NodeProcess {

    /**
     * Environment variable with more JVM flags for every node of the run, e.g.
     * {@code -XX:StartFlightRecording=...}.
     */
    static final String NODE_JAVA_OPTS_VARIABLE = "VARPULIS_DEMO_NODE_JAVA_OPTS";

    /**
     * Environment variable with more environment for every node of the run,
     * {@code NAME=VALUE} separated by spaces, {@code {node}} in a value replaced by the
     * node's name: the fault suite runs the nodes under libfaketime with
     * {@code LD_PRELOAD=... FAKETIME_TIMESTAMP_FILE=/dir/{node}} and moves one node's
     * clock by writing its file.
     */
    static final String NODE_ENV_VARIABLE = "VARPULIS_DEMO_NODE_ENV";

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final String name;

    private final List<String> arguments;

    private final Map<String, String> environment;

    private final Path log;

    private final int port;

    private Process process;

    private NodeProcess(String name, List<String> arguments, Map<String, String> environment, Path log, int port) {
        this.name = name;
        this.arguments = arguments;
        this.environment = environment;
        this.log = log;
        this.port = port;
    }

    /**
     * @param count how many ports
     * @return distinct free loopback ports, found while all sockets are held open (so two
     * nodes never get one)
     * @throws IOException when no free port is found
     */
    static int[] freePorts(int count) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                sockets.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
            }
            return sockets.stream().mapToInt(ServerSocket::getLocalPort).toArray();
        }
        finally {
            for (ServerSocket socket : sockets) {
                socket.close();
            }
        }
    }

    /**
     * @param name the node name, for messages and its log file
     * @param properties Spring arguments ({@code --key=value}): any user of the host
     * reads them in {@code /proc/<pid>/cmdline}, so never a secret
     * @param secrets environment variables added to this JVM's for the node (Spring's
     * relaxed names, such as {@code SPRING_SECURITY_USER_PASSWORD}):
     * {@code /proc/<pid>/environ} is readable by the same user and root only (review
     * finding 8)
     * @param logDir where {@code <name>.log} is written; the JVM's temporary files
     * (Tomcat's) go to {@code tmp/<name>} there, so that nothing of a killed node is left
     * in the system's
     * @param port its HTTP port (see {@link #freePorts})
     * @return a node, not started
     */
    static NodeProcess of(String name, List<String> properties, Map<String, String> secrets, Path logDir, int port) {
        List<String> command = new ArrayList<>(javaCommand(name, logDir.resolve("tmp").resolve(name)));
        command.addAll(properties);
        command.add("--server.port=" + port);
        command.add("--server.address=127.0.0.1");
        Map<String, String> environment = new HashMap<>(nodeEnvironment(name, System.getenv(NODE_ENV_VARIABLE)));
        environment.putAll(secrets);
        return new NodeProcess(name, command, Map.copyOf(environment), logDir.resolve(name + ".log"), port);
    }

    /**
     * @param name the node's name
     * @param value {@value #NODE_ENV_VARIABLE}'s value, or {@code null}
     * @return the variables it names, {@code {node}} replaced by the name
     * @throws IllegalArgumentException naming a word that is not {@code NAME=VALUE}
     */
    static Map<String, String> nodeEnvironment(String name, String value) {
        Map<String, String> environment = new HashMap<>();
        if (value == null || value.isBlank()) {
            return environment;
        }
        for (String word : value.trim().split("\\s+")) {
            int equals = word.indexOf('=');
            if (equals < 1) {
                throw new IllegalArgumentException(NODE_ENV_VARIABLE + " holds '" + word + "', not NAME=VALUE: "
                        + "separate the variables with spaces, e.g. FAKETIME_TIMESTAMP_FILE=/tmp/{node}.faketime");
            }
            environment.put(word.substring(0, equals), word.substring(equals + 1).replace("{node}", name));
        }
        return environment;
    }

    /**
     * Starts (or starts again) the JVM, appending to its log.
     * @throws IOException when the JVM cannot be launched
     */
    void start() throws IOException {
        Files.createDirectories(log.resolveSibling("tmp").resolve(name));
        ProcessBuilder builder = new ProcessBuilder(arguments).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().putAll(environment);
        process = builder.start();
    }

    /**
     * Waits until {@code /actuator/health/readiness} answers UP.
     * @param timeout how long at most
     * @throws IllegalStateException when the node died or did not become ready in time
     */
    void awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with status " + process.exitValue() + "; see " + log);
            }
            try {
                HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(uri("/actuator/health/readiness"))
                    .timeout(Duration.ofSeconds(2))
                    .build(), HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200) {
                    return;
                }
            }
            catch (IOException notYet) {
                // Not listening yet.
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException(name + " was not ready within " + timeout.toSeconds() + " s; see " + log);
    }

    /**
     * Kills the JVM with SIGKILL and waits for it to be gone.
     * @return the killed process id
     */
    long kill() throws InterruptedException {
        long pid = process.pid();
        process.destroyForcibly();
        process.waitFor();
        return pid;
    }

    /**
     * Stops the JVM with SIGTERM (graceful drain), then SIGKILL after 30 s.
     */
    void stop() throws InterruptedException {
        if (process == null || !process.isAlive()) {
            return;
        }
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }

    /**
     * @param path a path on the node's HTTP port
     * @return its URI
     */
    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    /**
     * @return the log file
     */
    Path log() {
        return log;
    }

    /**
     * @return the node's name
     */
    String name() {
        return name;
    }

    /**
     * @return the running JVM's process id
     */
    long pid() {
        return process.pid();
    }

    /**
     * The same code as this JVM: {@code java -jar app.jar} when launched from the jar,
     * the classpath otherwise, with C1 only (issue 34, paired runs on a million and three
     * million lines: the JVM's tiered C2 spent a third of both cores compiling while the
     * job ran, and the job took 1.2 to 1.4 times as long end to end), and a serial
     * collector in 256 MB, plus the flags of {@value #NODE_JAVA_OPTS_VARIABLE}
     * ({@code {node}} in them replaced by the node's name), which come last and so win:
     * {@code -XX:TieredStopAtLevel=4} gives the nodes C2, a flight recording per node is
     * {@code -XX:StartFlightRecording=filename=/tmp/{node}.jfr}. No {@code hsperfdata}
     * file: a killed JVM would leave it behind.
     */
    private static List<String> javaCommand(String name, Path tmpDir) {
        String javaBinary = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classPath = System.getProperty("java.class.path");
        List<String> command = new ArrayList<>(List.of(javaBinary, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Xmx256m", "-Xss512k", "-XX:-UsePerfData", "-Djava.io.tmpdir=" + tmpDir));
        String extra = System.getenv(NODE_JAVA_OPTS_VARIABLE);
        if (extra != null && !extra.isBlank()) {
            for (String flag : extra.trim().split("\\s+")) {
                command.add(flag.replace("{node}", name));
            }
        }
        if (!classPath.contains(java.io.File.pathSeparator) && classPath.endsWith(".jar")) {
            command.addAll(List.of("-jar", classPath));
        }
        else {
            command.addAll(List.of("-cp", classPath, "io.varpulis.VarpulisClusterApplication"));
        }
        return command;
    }

}
