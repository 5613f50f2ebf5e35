package io.varpulis.jetstream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.api.ServerInfo;
import io.varpulis.support.DaemonThreads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Finds out whether the nats-servers sync every acknowledged write to disk
 * ({@link ServerSync}), says so at WARN when they do not, and keeps the answer for the
 * {@code jetstream} health and the {@code varpulis.jetstream.sync.always} gauge.
 * <p>
 * The NATS protocol does not tell a client: the server's INFO, {@code $JS.API.INFO} and
 * the {@code $SYS} requests an account may make ({@code USER.INFO}, account {@code STATZ}
 * and {@code CONNZ}) carry no sync setting on 2.9, 2.12 or 2.15; only the monitoring
 * endpoint ({@code /varz}: {@code jetstream.config.sync_always} and
 * {@code sync_interval}) and the system account's {@code JSZ} do. So the check reads
 * {@code /varz} of the monitoring URLs it is given
 * ({@code varpulis.nats.jetstream.sync-check.monitoring-urls}, one per server, as KEDA
 * reads their lag); a server older than 2.10 cannot sync every write at all, which its
 * version tells; otherwise the answer is {@code unknown}, said once at INFO.
 * <p>
 * Checked when the context starts (after the streams were declared), then every interval:
 * a server restarted with another setting is seen.
 */
public class ServerSyncCheck implements SmartLifecycle, AutoCloseable {

    /** The first nats-server release with {@code sync_interval} (and {@code always}). */
    static final String FIRST_VERSION_WITH_SYNC_SETTING = "2.10.0";

    /** nats-server 2.9's fixed background sync (filestore.go, defaultSyncInterval). */
    static final Duration OLD_SERVER_SYNC = Duration.ofSeconds(60);

    private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(2);

    private static final Logger log = LoggerFactory.getLogger(ServerSyncCheck.class);

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Connection connection;

    private final List<URI> monitoringUrls;

    private final Duration interval;

    private final HttpClient http;

    private ScheduledExecutorService scheduler;

    private volatile ServerSync current;

    private ServerSync logged;

    /**
     * @param connection the connection, whose server's version is read
     * @param monitoringUrls the servers' monitoring endpoints ({@code http://host:8222}),
     * each asked for {@code /varz}; empty when none is reachable
     * @param interval how often to check again
     */
    public ServerSyncCheck(Connection connection, List<URI> monitoringUrls, Duration interval) {
        this.connection = connection;
        this.monitoringUrls = List.copyOf(monitoringUrls);
        this.interval = interval;
        this.http = HttpClient.newBuilder().connectTimeout(HTTP_TIMEOUT).build();
        this.current = new ServerSync(ServerSync.Setting.UNKNOWN, Map.of(), "none", "not checked yet");
    }

    /**
     * @return the last answer ({@code unknown}, "not checked yet", before the first)
     */
    public ServerSync current() {
        return current;
    }

    /**
     * Asks now, logs a change (WARN when a server does not sync every write, INFO once
     * when it is not known), and keeps the answer.
     * @return the answer
     */
    public synchronized ServerSync check() {
        ServerSync found = ask();
        current = found;
        if (!found.equals(logged)) {
            logged = found;
            switch (found.setting()) {
                case INTERVAL -> log.warn("{}", found.reason());
                case UNKNOWN -> log.info("whether nats-server syncs every write is unknown: {}", found.reason());
                case ALWAYS ->
                    log.info("nats-server syncs every write before acknowledging it (sync_interval: " + "always) on {}",
                            found.servers().keySet());
            }
        }
        return found;
    }

    private ServerSync ask() {
        ServerInfo info = connection.getServerInfo();
        if (info != null && info.getVersion() != null
                && !info.isSameOrNewerThanVersion(FIRST_VERSION_WITH_SYNC_SETTING)) {
            String server = info.getServerName();
            return new ServerSync(ServerSync.Setting.INTERVAL,
                    Map.of(server, "every " + OLD_SERVER_SYNC.toSeconds() + "s"), "version",
                    unsyncedWarning(server + " (nats-server " + info.getVersion() + ", which has no sync_interval "
                            + "setting and syncs every " + OLD_SERVER_SYNC.toSeconds() + " s)"));
        }
        if (monitoringUrls.isEmpty()) {
            return new ServerSync(ServerSync.Setting.UNKNOWN, Map.of(), "none",
                    "the NATS protocol does not tell clients the server's sync_interval; give the servers' "
                            + "monitoring endpoints (varpulis.nats.jetstream.sync-check.monitoring-urls, e.g. "
                            + "http://nats-0.nats-headless:8222) to read it from their /varz");
        }
        Map<String, String> servers = new LinkedHashMap<>();
        List<String> unsynced = new ArrayList<>();
        List<String> silent = new ArrayList<>();
        for (URI url : monitoringUrls) {
            try {
                JsonNode varz = varz(url);
                String name = varz.path("server_name").asText(url.toString());
                JsonNode config = varz.path("jetstream").path("config");
                if (config.path("sync_always").asBoolean(false)) {
                    servers.put(name, "always");
                }
                else {
                    Duration every = Duration.ofNanos(config.path("sync_interval").asLong(0));
                    String setting = every.isZero() ? "every 2m (the default)" : "every " + StreamDrift.duration(every);
                    servers.put(name, setting);
                    unsynced.add(name + " (" + setting + ")");
                }
            }
            catch (IOException | RuntimeException e) {
                silent.add(url + " (" + e.getMessage() + ")");
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                silent.add(url + " (interrupted)");
            }
        }
        if (!unsynced.isEmpty()) {
            return new ServerSync(ServerSync.Setting.INTERVAL, servers, "varz",
                    unsyncedWarning(String.join(", ", unsynced)));
        }
        if (!silent.isEmpty()) {
            return new ServerSync(ServerSync.Setting.UNKNOWN, servers, "varz",
                    "no /varz answer from " + String.join(", ", silent));
        }
        return new ServerSync(ServerSync.Setting.ALWAYS, servers, "varz", "");
    }

    private static String unsyncedWarning(String servers) {
        return "nats-server " + servers + " does not sync every write to disk before acknowledging it: events the "
                + "streams acknowledged since its last sync are lost if every server loses power at once (Jepsen, "
                + "NATS 2.12.1). Set jetstream { sync_interval: always } on every server (helm/nats-values.yaml "
                + "does; docs/RELIABILITY.md says what it costs)";
    }

    private JsonNode varz(URI base) throws IOException, InterruptedException {
        URI uri = URI.create(base.toString().replaceAll("/+$", "") + "/varz");
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).timeout(HTTP_TIMEOUT).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("HTTP " + response.statusCode());
        }
        return Objects.requireNonNull(JSON.readTree(response.body()));
    }

    private void checkQuietly() {
        try {
            check();
        }
        catch (RuntimeException e) {
            // Never the end of the schedule: the next interval asks again.
            log.debug("sync check failed: {}", e.toString());
        }
    }

    /** Checks now, then every interval, in the background. */
    @Override
    public synchronized void start() {
        if (scheduler != null) {
            return;
        }
        check();
        scheduler = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("varpulis-sync-check"));
        scheduler.scheduleWithFixedDelay(this::checkQuietly, interval.toMillis(), interval.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void stop() {
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler = null;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return scheduler != null;
    }

    /** Stops checking. */
    @Override
    public void close() {
        stop();
    }

}
