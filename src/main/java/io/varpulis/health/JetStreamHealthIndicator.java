package io.varpulis.health;

import io.nats.client.Connection;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.StreamInfo;
import io.nats.client.api.StreamState;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.JetStreamLoss;
import io.varpulis.jetstream.JetStreamReach;
import io.varpulis.jetstream.ServerSyncCheck;
import io.varpulis.jetstream.StreamDrift;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.support.DaemonThreads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.context.SmartLifecycle;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Health component {@code jetstream}: UP when every declared stream and every durable
 * consumer in use exists and the connected server reaches every stream's leader; DOWN,
 * with the server named in {@code server} and a {@code reason} that says what to do, when
 * JetStream is disabled on that server, a stream has no leader (no quorum), the server's
 * replica of a stream is offline, or JetStream does not answer ({@link JetStreamReach},
 * issue 25). These last ones are transient (a stream leader election shows them on every
 * node at once): they turn the component DOWN only once they have lasted
 * {@code down-after} ({@code varpulis.nats.jetstream.leader-reach.down-after}); meanwhile
 * it stays UP with the {@code problem} and its {@code since} in its details. JetStream
 * disabled on the server is DOWN at once: its INFO says so, or (a server whose JetStream
 * was disabled under a live connection, issue 30) the leader of a stream has not heard
 * from the server's replica for {@link JetStreamReach#REPLICA_SILENT}. Details:
 * {@code streams} (per stream: {@code present}, {@code messages}, {@code bytes}, and
 * {@code drift} when its settings differ from the declaration), {@code consumers} (per
 * durable: {@code pending}, {@code ackPending}, {@code redelivered}), {@code losses}
 * (what the servers lost since the node started, {@link JetStreamLoss#toDetails()}, the
 * last 50; only when there are some), {@code dlqDepth} (messages parked in
 * {@code VARPULIS_DLQ}), {@code checkedAt} (when the server was last asked) and
 * {@code sync} (whether the servers sync every write, {@link ServerSyncCheck}: a warning,
 * never DOWN).
 * <p>
 * The server is first asked when the context starts (a {@link SmartLifecycle} of the last
 * phase), after the streams were declared: asked before, a node showed {@code streams:
 * {}} and UP, and no drift, until its second check (issue 43).
 * <p>
 * It answers at once whatever NATS is doing, because readiness probes time out (the
 * chart's after 3 s) and a JetStream request to a server that is away waits for its whole
 * timeout: the server is asked in the background every refresh interval, and a health
 * check returns the last answer. While the connection is not connected the component is
 * DOWN without asking; when the last answer is older than three refresh intervals (a
 * server that accepts connections and never answers) it is DOWN and says since when.
 */
public class JetStreamHealthIndicator extends AbstractHealthIndicator implements SmartLifecycle, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JetStreamHealthIndicator.class);

    private final JetStreamAdmin admin;

    private final Connection connection;

    private final Duration refreshInterval;

    private final ProblemGrace grace;

    private final ServerSyncCheck sync;

    private ScheduledExecutorService refresher;

    private volatile Checked last;

    /**
     * Asks nothing until {@link #start()}.
     * @param admin knows the declared streams and consumers and asks the server about
     * them
     * @param connection the connection, whose state is read without a round trip
     * @param refreshInterval how often the server is asked
     * @param downAfter how long a transient problem (no leader reached, no answer) lasts
     * before the component turns DOWN; {@link Duration#ZERO} turns it DOWN at once
     */
    public JetStreamHealthIndicator(JetStreamAdmin admin, Connection connection, Duration refreshInterval,
            Duration downAfter) {
        this(admin, connection, refreshInterval, downAfter, null);
    }

    /**
     * Asks nothing until {@link #start()}.
     * @param admin knows the declared streams and consumers and asks the server about
     * them
     * @param connection the connection, whose state is read without a round trip
     * @param refreshInterval how often the server is asked
     * @param downAfter how long a transient problem lasts before the component turns DOWN
     * @param sync whether the servers sync every write, shown as the {@code sync} detail;
     * null for none
     */
    public JetStreamHealthIndicator(JetStreamAdmin admin, Connection connection, Duration refreshInterval,
            Duration downAfter, ServerSyncCheck sync) {
        super("JetStream health check failed");
        this.admin = admin;
        this.connection = connection;
        this.refreshInterval = refreshInterval;
        this.grace = new ProblemGrace(downAfter);
        this.sync = sync;
    }

    /**
     * Asks the server once now (bounded by the JetStream request timeout), then every
     * refresh interval.
     */
    @Override
    public synchronized void start() {
        if (refresher != null) {
            return;
        }
        refresh();
        refresher = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("varpulis-jetstream-health"));
        refresher.scheduleWithFixedDelay(this::refresh, refreshInterval.toMillis(), refreshInterval.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void stop() {
        if (refresher != null) {
            refresher.shutdownNow();
            refresher = null;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return refresher != null;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        Checked checked = last;
        if (checked != null) {
            builder.withDetails(checked.health().getDetails()).withDetail("checkedAt", checked.at().toString());
        }
        if (sync != null) {
            builder.withDetail("sync", sync.current().details());
        }
        Connection.Status status = connection.getStatus();
        if (status != Connection.Status.CONNECTED) {
            builder.down()
                .withDetail("reason",
                        "the NATS connection is " + status + "; JetStream is not asked " + "until it is back");
        }
        else if (checked == null
                || Duration.between(checked.at(), Instant.now()).compareTo(refreshInterval.multipliedBy(3)) > 0) {
            builder.down()
                .withDetail("reason",
                        "JetStream has not answered since " + (checked == null ? "this node started" : checked.at()));
        }
        else {
            builder.status(checked.health().getStatus());
        }
    }

    /** Stops asking the server. */
    @Override
    public void close() {
        stop();
    }

    private void refresh() {
        if (connection.getStatus() != Connection.Status.CONNECTED) {
            return;
        }
        String server = JetStreamReach.serverName(connection);
        Health.Builder builder = new Health.Builder().withDetail("server", server);
        Optional<JetStreamReach.Problem> passing;
        try {
            passing = ask(builder, server);
        }
        catch (StreamFailure e) {
            // With the server named: a server that lost its majority answers "temporarily
            // unavailable" or nothing,
            // and the node's events wait meanwhile; one without JetStream stays so until
            // restarted.
            log.debug("jetstream health refresh failed: {}", e.problem.describe());
            builder = new Health.Builder().withDetail("server", server);
            passing = e.lasting ? Optional.empty() : Optional.of(e.problem);
            if (e.lasting) {
                builder.down().withDetail("reason", e.problem.describe());
            }
        }
        if (!server.equals(JetStreamReach.serverName(connection))) {
            // Reconnected to another server while asking: the answers may be that
            // server's, the details would name the one before. The next refresh asks
            // again.
            log.debug("jetstream health refresh dropped: the connection moved from {} to another server meanwhile",
                    server);
            return;
        }
        Instant now = Instant.now();
        if (passing.isEmpty()) {
            grace.cleared();
        }
        else {
            Instant since = grace.seen(now);
            if (grace.elapsed(now)) {
                builder.down().withDetail("reason", passing.get().describe());
            }
            else {
                builder.up().withDetail("problem", passing.get().describe());
            }
            builder.withDetail("since", since.toString());
        }
        last = new Checked(builder.build(), now);
    }

    /**
     * Asks the server about a stream (or a consumer on it), turning a failure into what
     * it shows.
     */
    private static <T> T asking(String stream, String server, Callable<T> request) throws StreamFailure {
        try {
            return request.call();
        }
        catch (Exception e) {
            throw new StreamFailure(JetStreamReach.ofFailure(stream, server, e), JetStreamReach.isNotEnabled(e));
        }
    }

    /**
     * Asks the server about every stream and consumer and sets the status, except for a
     * transient problem.
     * @return the transient problem (no stream leader, an offline replica), whose status
     * the caller sets
     */
    private Optional<JetStreamReach.Problem> ask(Health.Builder builder, String server) throws StreamFailure {
        Map<String, Object> streams = new LinkedHashMap<>();
        Map<String, StreamDrift> drift = admin.drift();
        boolean allPresent = true;
        Optional<JetStreamReach.Problem> disabled = JetStreamReach.ofServer(connection);
        Optional<JetStreamReach.Problem> reach = Optional.empty();
        for (String name : admin.declaredStreams().keySet()) {
            Optional<StreamInfo> info = asking(name, server, () -> admin.streamInfo(name));
            if (disabled.isEmpty() && info.isPresent()) {
                // The connected server's own replica silent or offline: its JetStream
                // disabled (a full disk) or its
                // store failing, which lasts until an operator acts: DOWN at once, as
                // JetStream off in its INFO.
                disabled = JetStreamReach.ofConnectedReplica(info.get(), server);
            }
            if (disabled.isEmpty() && reach.isEmpty() && info.isPresent()) {
                reach = JetStreamReach.ofStream(info.get(), server);
            }
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("present", info.isPresent());
            info.map(StreamInfo::getStreamState).ifPresent(state -> {
                details.put("messages", state.getMsgCount());
                details.put("bytes", state.getByteCount());
            });
            if (drift.containsKey(name)) {
                details.put("drift", drift.get(name).describe());
            }
            if (name.equals(VarpulisJetStream.DLQ_STREAM)) {
                builder.withDetail("dlqDepth",
                        info.map(StreamInfo::getStreamState).map(StreamState::getMsgCount).orElse(0L));
            }
            allPresent &= info.isPresent();
            streams.put(name, details);
        }
        Map<String, Object> consumers = new LinkedHashMap<>();
        boolean consumersPresent = true;
        for (ConsumerDeclaration declared : admin.declaredConsumers()) {
            Optional<ConsumerInfo> info = asking(declared.stream(), server,
                    () -> admin.consumerInfo(declared.stream(), declared.durable()));
            consumersPresent &= info.isPresent();
            consumers.put(declared.durable(), info
                .<Object>map(c -> Map.of("pending", c.getNumPending(), "ackPending", c.getNumAckPending(),
                        "redelivered", c.getRedelivered()))
                .orElse(Map.of("present", false)));
        }
        builder.withDetail("streams", streams).withDetail("consumers", consumers);
        if (admin.losses().count() > 0) {
            // What the servers lost since this node started (issue 43): history, not a
            // state, so readiness does not turn on it.
            builder.withDetail("losses", admin.losses().recent().stream().map(JetStreamLoss::toDetails).toList());
        }
        if (disabled.isPresent()) {
            builder.down().withDetail("reason", disabled.get().describe());
        }
        else if (reach.isPresent()) {
            return reach;
        }
        else if (!allPresent) {
            builder.down().withDetail("reason", "a declared stream is missing; restart a node to recreate it");
        }
        else if (!consumersPresent) {
            builder.down()
                .withDetail("reason", "a durable consumer in use is missing on the server (deleted by "
                        + "hand?); its events are not consumed until the pipeline is deployed again");
        }
        else {
            builder.up();
        }
        return Optional.empty();
    }

    private record Checked(Health health, Instant at) {
    }

    /**
     * A request about a stream that failed, with what it shows about the connected
     * server, and whether it lasts (JetStream not enabled there) rather than passes (no
     * answer, no meta leader).
     */
    private static final class StreamFailure extends Exception {

        private final transient JetStreamReach.Problem problem;

        private final boolean lasting;

        StreamFailure(JetStreamReach.Problem problem, boolean lasting) {
            super(problem.describe(), null, false, false);
            this.problem = problem;
            this.lasting = lasting;
        }

    }

}
