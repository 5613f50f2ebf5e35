package com.example.stellar;

import io.varpulis.support.NatsServerBinaries;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A nats-server of the test's own, on a free loopback port (VARPULIS_NATS_SERVER, else nats-server on PATH). */
final class NatsServer implements AutoCloseable {

    private final Process process;
    private final int port;

    private NatsServer(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    static NatsServer start(boolean jetStream) throws IOException, InterruptedException {
        Path binary = NatsServerBinaries.find().orElseThrow(() ->
                new IllegalStateException("no nats-server: set VARPULIS_NATS_SERVER or put nats-server on PATH"));
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        Path dir = Files.createTempDirectory(Path.of("target"), "nats-");
        List<String> command = new ArrayList<>(List.of(binary.toString(), "-a", "127.0.0.1", "-p",
                Integer.toString(port)));
        if (jetStream) {
            command.addAll(List.of("-js", "-sd", dir.toString()));
        }
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("nats-server.log").toFile()).start();
        for (int i = 0; i < 200; i++) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 100);
                return new NatsServer(process, port);
            } catch (IOException notYet) {
                Thread.sleep(50);
            }
        }
        process.destroyForcibly();
        throw new IllegalStateException("nats-server did not listen on " + port + "; see " + dir + File.separator
                + "nats-server.log");
    }

    String url() {
        return "nats://127.0.0.1:" + port;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        process.waitFor();
    }
}
