package io.varpulis.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.varpulis.VarpulisClusterApplication;
import io.varpulis.cluster.coordinator.ClusterQueries;
import io.varpulis.cluster.node.ClusterHealthIndicator;
import io.varpulis.cluster.worker.WorkerNode;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventProcessor;
import io.varpulis.pipeline.ProcessingContext;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.TestCredentials;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.boot.context.event.ApplicationStartingEvent;
import org.springframework.boot.context.logging.LoggingApplicationListener;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.Ordered;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One cluster node of a broker test: the jar's own application
 * ({@link VarpulisClusterApplication}, its {@code application.yml}, every
 * auto-configuration) started as a separate Spring context on a test nats-server. A
 * coordinator serves the operator API on a random port (requests carry
 * {@link TestCredentials}); a worker has no web server and an {@link EventProcessor} bean
 * named {@value #RECORDER} that records what the pipelines of type {@code bean} apply.
 */
final class ClusterNode implements AutoCloseable {

    /**
     * The name of a worker's recording processor bean, for {@code {"type": "bean",
     * "settings": {"bean": ...}}}.
     */
    static final String RECORDER = "recorder";

    /** How often workers heartbeat in these tests. */
    static final Duration HEARTBEAT_INTERVAL = Duration.ofMillis(500);

    /**
     * How long the coordinator waits for a heartbeat before it marks a worker unhealthy,
     * in these tests.
     */
    static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(2);

    /** How long the leader's lease lives without a renewal, in these tests. */
    static final Duration LEADER_LEASE_TTL = Duration.ofSeconds(2);

    /** How long a worker id stays held without a renewal, in these tests. */
    static final Duration WORKER_LEASE_TTL = Duration.ofSeconds(3);

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final String name;

    private final ConfigurableApplicationContext context;

    private final List<Recorded> recorded;

    private volatile CompletableFuture<Void> closing;

    private ClusterNode(String name, ConfigurableApplicationContext context, List<Recorded> recorded) {
        this.name = name;
        this.context = context;
        this.recorded = recorded;
    }

    /**
     * @param nats the broker
     * @param substrate {@code jetstream} or {@code core}
     * @param coordinatorId the coordinator id (names its durable heartbeat consumer)
     * @param extra more {@code --key=value} arguments (declared groups, ...)
     * @return a running coordinator with the operator API on a random port
     */
    static ClusterNode coordinator(NatsServerExtension nats, String substrate, String coordinatorId, String... extra) {
        return coordinator(nats.url(), substrate, coordinatorId, extra);
    }

    /**
     * @param url the broker's URL(s)
     * @param substrate {@code jetstream} or {@code core}
     * @param coordinatorId the coordinator id (names its durable heartbeat consumer)
     * @param extra more {@code --key=value} arguments (declared groups, cluster name,
     * ...)
     * @return a running coordinator with the operator API on a random port
     */
    static ClusterNode coordinator(String url, String substrate, String coordinatorId, String... extra) {
        List<String> args = common(url, substrate, "coordinator");
        args.add("--varpulis.cluster.coordinator-id=" + coordinatorId);
        args.addAll(List.of(extra));
        return new ClusterNode(coordinatorId, start(args, true, null), null);
    }

    /**
     * @param nats the broker
     * @param substrate {@code jetstream} or {@code core}
     * @param workerId the worker id
     * @param extra more {@code --key=value} arguments (NATS credentials, ...)
     * @return a running worker with a {@value #RECORDER} bean
     */
    static ClusterNode worker(NatsServerExtension nats, String substrate, String workerId, String... extra) {
        return worker(nats.url(), substrate, workerId, false, extra);
    }

    /**
     * @param url the broker's URL(s)
     * @param substrate {@code jetstream} or {@code core}
     * @param workerId the worker id
     * @param web whether it serves HTTP (Actuator) on a random port
     * @param extra more {@code --key=value} arguments
     * @return a running worker with a {@value #RECORDER} bean
     */
    static ClusterNode worker(String url, String substrate, String workerId, boolean web, String... extra) {
        List<String> args = common(url, substrate, "worker");
        args.add("--varpulis.cluster.worker-id=" + workerId);
        args.addAll(List.of(extra));
        List<Recorded> recorded = new CopyOnWriteArrayList<>();
        EventProcessor recorder = (Event event, ProcessingContext processing) -> {
            recorded.add(new Recorded(processing.group(), event));
            return List.of();
        };
        return new ClusterNode(workerId, start(args, web, recorder), recorded);
    }

    /**
     * Starts a node; of two arguments with the same key, the later one (a test's own)
     * wins.
     */
    private static ConfigurableApplicationContext start(List<String> given, boolean web, EventProcessor recorder) {
        Map<String, String> byKey = new LinkedHashMap<>();
        given.forEach(arg -> byKey.put(arg.split("=", 2)[0], arg));
        List<String> args = new ArrayList<>(byKey.values());
        if (web) {
            args.add("--server.port=0");
            args.add("--server.address=127.0.0.1");
        }
        SpringApplicationBuilder builder = new SpringApplicationBuilder(VarpulisClusterApplication.class)
            .web(web ? WebApplicationType.SERVLET : WebApplicationType.NONE)
            .listeners(new LoggingInitLock.Take(), new LoggingInitLock.Give());
        if (recorder != null) {
            builder.initializers(ctx -> ctx.getBeanFactory().registerSingleton(RECORDER, recorder));
        }
        return builder.run(args.toArray(String[]::new));
    }

    private static List<String> common(String url, String substrate, String role) {
        return new ArrayList<>(List.of("--varpulis.nats.url=" + url, "--varpulis.nats.substrate=" + substrate,
                "--varpulis.cluster.role=" + role,
                "--varpulis.cluster.heartbeat-interval=" + HEARTBEAT_INTERVAL.toMillis() + "ms",
                "--varpulis.cluster.heartbeat-timeout=" + HEARTBEAT_TIMEOUT.toMillis() + "ms",
                "--varpulis.cluster.drain-timeout=1s", "--varpulis.cluster.command-timeout=2s",
                "--varpulis.cluster.registration-max-backoff=2s", "--varpulis.nats.jetstream.consumer.nak-delay=200ms",
                "--varpulis.cluster.leader-lease-ttl=" + LEADER_LEASE_TTL.toMillis() + "ms",
                "--varpulis.cluster.worker-lease-ttl=" + WORKER_LEASE_TTL.toMillis() + "ms",
                // Pipelines stay where they were placed unless a test asks for
                // rebalancing.
                "--varpulis.cluster.rebalance-delay=1h",
                // In-process nodes: a refused worker must not end the test JVM.
                "--varpulis.cluster.exit-on-refusal=false",
                // An event delivered to a worker that dies before acking it comes back
                // after 5 s, not 30 s.
                "--varpulis.nats.jetstream.consumer.ack-wait=5s", TestCredentials.PASSWORD_ARGUMENT,
                "--spring.main.banner-mode=off", "--logging.level.root=WARN", "--logging.level.io.varpulis=INFO"));
    }

    String name() {
        return name;
    }

    /**
     * @return whether this node is a coordinator (it has no recorder)
     */
    boolean isCoordinator() {
        return recorded == null;
    }

    ConfigurableApplicationContext context() {
        return context;
    }

    ClusterQueries coordinator() {
        return context.getBean(ClusterQueries.class);
    }

    WorkerNode worker() {
        return context.getBean(WorkerNode.class);
    }

    SubstrateMetrics metrics() {
        return context.getBean(SubstrateMetrics.class);
    }

    /**
     * @return the {@code cluster} health contributor's answer now
     */
    Health clusterHealth() {
        return context.getBean(ClusterHealthIndicator.class).health(true);
    }

    /**
     * @param group a pipeline group
     * @return the events this worker's {@value #RECORDER} bean applied for that group, in
     * order
     */
    List<Event> recorded(String group) {
        return recorded.stream().filter(r -> r.group().equals(group)).map(Recorded::event).toList();
    }

    /**
     * Stops the node like a killed process, as far as the broker sees it: the NATS
     * connection is closed at once, so nothing is drained, acked or unsubscribed, no
     * heartbeat or reply goes out any more; the context, now without a connection, is
     * closed in the background ({@link #close()} waits for it).
     */
    void kill() throws InterruptedException {
        context.getBean(Connection.class).close();
        closing = CompletableFuture.runAsync(context::close);
    }

    /**
     * Stops the node gracefully (a worker drains its in-flight applies); waits for a
     * {@link #kill()} to finish.
     */
    @Override
    public void close() {
        if (closing != null) {
            closing.join();
        }
        context.close();
    }

    /**
     * @param path a path of the operator API
     * @return the answer
     */
    Response get(String path) throws Exception {
        return send(HttpRequest.newBuilder(uri(path)).GET());
    }

    /**
     * @param path a path of the operator API
     * @param body the JSON body, as text or as an object to serialise
     * @return the answer
     */
    Response post(String path, Object body) throws Exception {
        String json = body instanceof String text ? text : JSON.writeValueAsString(body);
        return send(HttpRequest.newBuilder(uri(path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    /**
     * @param path a path of the operator API
     * @return the answer
     */
    Response delete(String path) throws Exception {
        return send(HttpRequest.newBuilder(uri(path)).DELETE());
    }

    private Response send(HttpRequest.Builder request) throws Exception {
        HttpResponse<String> response = HTTP.send(
                request.timeout(Duration.ofSeconds(10)).header("Authorization", TestCredentials.adminBasic()).build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode body = response.body().isEmpty() ? JSON.nullNode() : JSON.readTree(response.body());
        return new Response(response.statusCode(), body);
    }

    private URI uri(String path) {
        int port = ((WebServerApplicationContext) context).getWebServer().getPort();
        return URI.create("http://127.0.0.1:" + port + path);
    }

    /**
     * Spring Boot's logging system initialises from JVM-wide system properties; contexts
     * started at the same moment in one JVM can read another's half-written ones
     * ("Unknown format CONSOLE_LOG_STRUCTURED_FORMAT_IS_UNDEFINED"). The logging phase of
     * each start is taken one at a time; the rest of the start runs in parallel.
     */
    private static final class LoggingInitLock {

        private static final ReentrantLock LOCK = new ReentrantLock();

        /** Taken before anything else listens to the start. */
        private static final class Take implements ApplicationListener<ApplicationStartingEvent>, Ordered {

            @Override
            public void onApplicationEvent(ApplicationStartingEvent event) {
                LOCK.lock();
            }

            @Override
            public int getOrder() {
                return Ordered.HIGHEST_PRECEDENCE;
            }

        }

        /** Given back once the logging system is initialised, or the start failed. */
        private static final class Give implements ApplicationListener<ApplicationEvent>, Ordered {

            @Override
            public void onApplicationEvent(ApplicationEvent event) {
                if ((event instanceof ApplicationEnvironmentPreparedEvent || event instanceof ApplicationFailedEvent)
                        && LOCK.isHeldByCurrentThread()) {
                    LOCK.unlock();
                }
            }

            @Override
            public int getOrder() {
                return LoggingApplicationListener.DEFAULT_ORDER + 1;
            }

        }

    }

    /** An event the recorder applied, with the group of the pipeline that applied it. */
    private record Recorded(String group, Event event) {
    }

    /**
     * An operator API answer.
     *
     * @param status the HTTP status
     * @param body the JSON body ({@code null} node when empty)
     */
    record Response(int status, JsonNode body) {
    }

}
