package io.varpulis.health;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.VarpulisClusterApplication;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.TestCredentials;
import org.awaitility.core.ThrowingRunnable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Readiness answers within 1 s whatever NATS is doing (issue 11; the chart's probe times
 * out after 3 s): with the server stopped, and with a "server" that accepts TCP
 * connections and never says a word, the node's {@code /actuator/health/readiness}
 * answers DOWN at once, and UP again once the server is back. The node is started as
 * {@code java -jar} would start it, on the jar's own configuration.
 */
@BrokerTest
class ReadinessAnswersFastTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final Duration FAST = Duration.ofMillis(1000);

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    @Test
    void readinessAnswersDownInWellUnderASecondWhileNatsIsStoppedOrSilent_andUpWhenItIsBack() throws Exception {
        try (ConfigurableApplicationContext node = new SpringApplicationBuilder(VarpulisClusterApplication.class)
            .properties("server.port=0", "varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream",
                    "varpulis.nats.reconnect-wait=200ms", "varpulis.cluster.coordinator-id=ready-fast",
                    "varpulis.cluster.worker-id=ready-fast-w",
                    "spring.security.user.password=" + TestCredentials.PASSWORD)
            .run()) {
            int port = node.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            URI readiness = URI.create("http://127.0.0.1:" + port + "/actuator/health/readiness");
            await().atMost(Duration.ofSeconds(30)).until(() -> status(http, readiness).status().equals("UP"));

            nats.stop();
            try {
                await().atMost(Duration.ofSeconds(10)).until(() -> status(http, readiness).status().equals("DOWN"));
                ThrowingRunnable downFast = () -> {
                    Answer answer = status(http, readiness);
                    assertThat(answer.status()).isEqualTo("DOWN");
                    assertThat(answer.took()).as("server stopped").isLessThan(FAST);
                };
                await().during(Duration.ofMillis(1500))
                    .atMost(Duration.ofSeconds(3))
                    .pollInterval(Duration.ofMillis(300))
                    .failFast(downFast)
                    .untilAsserted(downFast);
                try (SilentServer silent = new SilentServer(nats.port())) {
                    await().atMost(Duration.ofSeconds(10)).until(() -> silent.accepted() > 0);
                    ThrowingRunnable silentFast = () -> {
                        Answer answer = status(http, readiness);
                        assertThat(answer.status()).isEqualTo("DOWN");
                        assertThat(answer.took()).as("a server that accepts TCP and never answers").isLessThan(FAST);
                    };
                    await().during(Duration.ofSeconds(4))
                        .atMost(Duration.ofSeconds(6))
                        .pollInterval(Duration.ofMillis(500))
                        .failFast(silentFast)
                        .untilAsserted(silentFast);
                }
            }
            finally {
                nats.start();
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> status(http, readiness).status().equals("UP"));
        }
    }

    private static Answer status(HttpClient http, URI uri) throws Exception {
        long started = System.nanoTime();
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        JsonNode body = JSON.readTree(response.body());
        return new Answer(body.path("status").asText(), took);
    }

    private record Answer(String status, Duration took) {
    }

    /**
     * Accepts TCP connections on the server's port and never sends anything (a hung
     * server, a half-open proxy).
     */
    private static final class SilentServer implements AutoCloseable {

        private final ServerSocket socket;

        private final List<Socket> held = new CopyOnWriteArrayList<>();

        private final Thread acceptor;

        SilentServer(int port) throws IOException {
            socket = new ServerSocket();
            socket.setReuseAddress(true);
            socket.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            acceptor = new Thread(() -> {
                while (!socket.isClosed()) {
                    try {
                        held.add(socket.accept());
                    }
                    catch (IOException closed) {
                        return;
                    }
                }
            }, "silent-nats");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int accepted() {
            return held.size();
        }

        @Override
        public void close() throws Exception {
            socket.close();
            for (Socket s : held) {
                s.close();
            }
            acceptor.join(2000);
        }

    }

}
