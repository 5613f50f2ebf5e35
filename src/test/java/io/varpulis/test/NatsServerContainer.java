package io.varpulis.test;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.output.OutputFrame;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * nats-server in a Docker container, used only when no binary is installed. The
 * container's 4222 is bound to a fixed loopback host port, and stop/start/kill act on the
 * same container, so the port and the store (inside the container, under
 * {@link #STORE_DIR}) survive a restart. Needs a local Docker daemon: the extension's
 * temp dir is bind-mounted read-only at the same path, so {@code -c} and the files in
 * {@code workDir()} resolve inside. Testcontainers' Ryuk removes the container if the JVM
 * dies.
 */
final class NatsServerContainer implements NatsServerBackend {

    /**
     * Image of the fallback server; 2.12 is the line the project targets in production.
     */
    static final String IMAGE = "nats:2.12";

    /** JetStream store inside the container. */
    static final String STORE_DIR = "/data";

    private static final int CLIENT_PORT = 4222;

    private static final int LOG_TAIL_CHARS = 4000;

    private final GenericContainer<?> container;

    private final int hostPort;

    private final boolean jetStream;

    private boolean created;

    /**
     * @param flags nats-server flags, including {@code -a 0.0.0.0 -p 4222} and
     * {@code -sd /data}
     * @param hostPort free loopback port that 4222 is published on
     * @param mount host directory mounted read-only at the same path (config file,
     * certificates)
     */
    NatsServerContainer(List<String> flags, int hostPort, boolean jetStream, Path mount) {
        this.hostPort = hostPort;
        this.jetStream = jetStream;
        this.container = new GenericContainer<>(DockerImageName.parse(IMAGE)).withCommand(flags.toArray(String[]::new))
            .withExposedPorts(CLIENT_PORT)
            .withCreateContainerCmdModifier(cmd -> cmd.getHostConfig()
                .withPortBindings(new PortBinding(Ports.Binding.bindIpAndPort("127.0.0.1", hostPort),
                        ExposedPort.tcp(CLIENT_PORT))))
            .withFileSystemBind(mount.toString(), mount.toString(), BindMode.READ_ONLY)
            .waitingFor(Wait.forLogMessage(".*Server is ready.*", 1));
    }

    /**
     * Whether Testcontainers can reach a Docker daemon (slow the first time: it probes
     * several strategies).
     */
    static boolean dockerAvailable() {
        return DockerClientFactory.instance().isDockerAvailable();
    }

    @Override
    public void start(Duration timeout) {
        try {
            if (created) {
                docker().startContainerCmd(container.getContainerId()).exec();
            }
            else {
                container.withStartupTimeout(timeout).start();
                created = true;
            }
        }
        catch (RuntimeException e) {
            throw new IllegalStateException(
                    "nats-server container " + IMAGE + " did not start: " + e.getMessage() + "\n" + diagnostics(), e);
        }
        NatsServerProbe.awaitInfo(hostPort, jetStream, timeout, this::isRunning, this::diagnostics);
    }

    @Override
    public void stop(Duration grace) {
        if (isRunning()) {
            docker().stopContainerCmd(container.getContainerId()).withTimeout((int) grace.toSeconds()).exec();
        }
    }

    @Override
    public void kill() {
        if (isRunning()) {
            docker().killContainerCmd(container.getContainerId()).exec();
        }
    }

    @Override
    public boolean isRunning() {
        return created && container.isRunning();
    }

    @Override
    public void close() {
        container.stop();
        created = false;
    }

    private static DockerClient docker() {
        return DockerClientFactory.instance().client();
    }

    private String diagnostics() {
        String command = "command: " + String.join(" ", container.getCommandParts());
        if (container.getContainerId() == null) {
            return command + "\n(no container was created)";
        }
        String logs = container.getLogs(OutputFrame.OutputType.STDOUT, OutputFrame.OutputType.STDERR);
        return command + "\nlast lines of container " + container.getContainerId() + " log:\n"
                + logs.substring(Math.max(0, logs.length() - LOG_TAIL_CHARS));
    }

}
