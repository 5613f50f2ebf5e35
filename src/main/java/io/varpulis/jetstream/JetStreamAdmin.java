package io.varpulis.jetstream;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.KeyValueStatus;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import io.varpulis.nats.NatsConnectionEvents;
import io.varpulis.support.Backoffs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.util.backoff.BackOffExecution;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Provisions declared streams and durable consumers, in the manner of Spring AMQP's
 * {@code RabbitAdmin} and Spring Kafka's {@code KafkaAdmin}: created if absent, never
 * updated (ADR-007), so limits an operator tuned by hand survive an upgrade. A stream
 * that exists with other settings is used as it is; the drift is logged once at WARN and
 * kept for the health details.
 * <p>
 * Errors are startup errors an operator can act on: {@link JetStreamUnavailableException}
 * when the server has no JetStream, {@link JetStreamPermissionException} when the node's
 * user may not create what it needs.
 * <p>
 * Longer than most: creating, inspecting and comparing (drift) a stream or consumer share
 * the declarations it keeps and the translation of the server's errors into startup
 * errors an operator can act on.
 */
public class JetStreamAdmin {

    /**
     * The description of a stream created bounded by max_age only, a server being unable
     * to reserve its max_bytes (SPEC section 3); the bytes asked for follow.
     */
    static final String SMALL_STORE_FALLBACK = "Varpulis: created bounded by max_age only, a server could not reserve "
            + "max_bytes=";

    private static final Logger log = LoggerFactory.getLogger(JetStreamAdmin.class);

    /**
     * How long provisioning asks again when JetStream does not answer (a cluster electing
     * its meta leader, or placing an R3 stream's replicas under load) before startup
     * fails.
     */
    static final Duration UNANSWERED_PROVISIONING_WAIT = Duration.ofSeconds(30);

    /** The subject in the server's "Permissions Violation for Publish to "..."" error. */
    private static final Pattern REFUSED_SUBJECT = Pattern.compile("\"([^\"]+)\"");

    private final Connection connection;

    private final JetStreamManagement jsm;

    private final NatsConnectionEvents events;

    private final Map<String, StreamDeclaration> declaredStreams = new ConcurrentHashMap<>();

    private final Map<String, StreamDrift> drift = new ConcurrentHashMap<>();

    private final Map<String, ConsumerDeclaration> declaredConsumers = new ConcurrentHashMap<>();

    private final Map<String, StreamDeclaration> declaredBuckets = new ConcurrentHashMap<>();

    private final Set<String> epochBuckets = ConcurrentHashMap.newKeySet();

    private final StreamCreator creator;

    private final StreamSequences sequences = new StreamSequences();

    private final JetStreamLosses losses = new JetStreamLosses();

    /**
     * @param connection an open connection
     * @param events the connection's listener, used to tell a missing permission from a
     * timeout; may be null
     * @throws JetStreamUnavailableException when the server does not have JetStream
     */
    public JetStreamAdmin(Connection connection, NatsConnectionEvents events) {
        this.connection = connection;
        this.events = events;
        try {
            this.jsm = connection.jetStreamManagement();
        }
        catch (IOException e) {
            throw new JetStreamUnavailableException(connection.getConnectedUrl(), e.getMessage(), e);
        }
        this.creator = new StreamCreator(connection, jsm);
    }

    /**
     * Checks that the server answers JetStream requests for this account.
     * @throws JetStreamUnavailableException when JetStream is off (the message names
     * {@code -js} and {@code VARPULIS_NATS_SUBSTRATE=core})
     * @throws JetStreamPermissionException when the user may not use the JetStream API
     */
    public void verifyJetStream() {
        if (!connection.getServerInfo().isJetStreamAvailable()) {
            throw new JetStreamUnavailableException(connection.getConnectedUrl(),
                    "the server's INFO says jetstream=false", null);
        }
        Instant started = Instant.now();
        try {
            jsm.getAccountStatistics();
        }
        catch (IOException | JetStreamApiException | RuntimeException e) {
            permissionFailure("the JetStream API", "$JS.API.INFO", started, e);
            throw new JetStreamUnavailableException(connection.getConnectedUrl(), e.getMessage(), e);
        }
    }

    /**
     * Provisions every declaration given.
     * @param streams streams to create when absent
     * @param consumers consumers to create when absent (after the streams)
     * @throws JetStreamPermissionException when the user may not create one of them
     * @throws IllegalStateException when the server refuses a declaration for another
     * reason
     */
    public void provision(Collection<StreamDeclaration> streams, Collection<ConsumerDeclaration> consumers) {
        streams.forEach(this::declareStream);
        consumers.forEach(this::declareConsumer);
    }

    /**
     * Compares existing streams with their declarations without creating anything
     * (provisioning turned off): drift is recorded as usual, a missing stream is logged
     * at WARN.
     * @param streams the declared streams
     * @throws IllegalStateException when the server cannot be asked
     */
    public void inspect(Collection<StreamDeclaration> streams) {
        for (StreamDeclaration declaration : streams) {
            declaredStreams.put(declaration.name(), declaration);
            try {
                Optional<StreamInfo> existing = streamInfo(declaration.name());
                if (existing.isPresent()) {
                    recordDrift(declaration, existing.get().getConfiguration());
                }
                else {
                    log.warn(
                            "stream {} does not exist and provisioning is off "
                                    + "(varpulis.nats.jetstream.provision=false): create it, or publishing to {} fails",
                            declaration.name(), declaration.configuration().getSubjects());
                }
            }
            catch (IOException | JetStreamApiException e) {
                throw new IllegalStateException("cannot inspect stream " + declaration.name() + ": " + e.getMessage(),
                        e);
            }
        }
    }

    /**
     * Creates the stream if absent; otherwise records how it differs from the
     * declaration.
     * <p>
     * When the server cannot reserve the declared max_bytes (more than its JetStream
     * storage; on a cluster, "no suitable peers for placement, insufficient storage" when
     * one server's store is small), the stream is created bounded by max_age only and a
     * WARN says so (SPEC sections 3 and 9).
     * <p>
     * A request JetStream does not answer (a cluster electing its meta leader) is asked
     * again for up to 30 s.
     * @param declaration the stream
     * @return the server's stream info
     * @throws JetStreamPermissionException when the user may not read or create it
     * @throws IllegalStateException when the server refuses it for another reason (a
     * cluster with fewer servers able to hold it than its replicas, or a peer offline:
     * the message names the replicas and the servers), or does not answer for 30 s
     */
    public StreamInfo declareStream(StreamDeclaration declaration) {
        String name = declaration.name();
        declaredStreams.put(name, declaration);
        Instant started = Instant.now();
        long deadline = System.nanoTime() + UNANSWERED_PROVISIONING_WAIT.toNanos();
        BackOffExecution waits = Backoffs.start(Duration.ofMillis(250), Duration.ofSeconds(2));
        while (true) {
            try {
                Optional<StreamInfo> existing = streamInfo(name);
                if (existing.isPresent()) {
                    recordDrift(declaration, existing.get().getConfiguration());
                    return existing.get();
                }
                return creator.create(declaration.configuration());
            }
            catch (JetStreamApiException e) {
                permissionFailure("stream " + name, "$JS.API.STREAM.CREATE." + name, started, e);
                if (!JetStreamErrors.isTemporarilyUnavailable(e)) {
                    throw new IllegalStateException("cannot provision stream " + name + ": " + e.getMessage(), e);
                }
                askAgain("stream " + name, e, waits, deadline);
            }
            catch (IOException e) {
                // No answer in time: a permission violation (said at once), or a
                // JetStream cluster still electing
                // its meta leader or busy placing replicas; asked again (a create that
                // was done meanwhile is found
                // by the info, never made twice) until the wait is over.
                permissionFailure("stream " + name, "$JS.API.STREAM.CREATE." + name, started, e);
                askAgain("stream " + name, e, waits, deadline);
            }
        }
    }

    /**
     * Waits before asking again about a stream or consumer JetStream did not answer for,
     * or answered "temporarily unavailable" (no meta leader).
     * @throws IllegalStateException when the next wait (250 ms doubling to 2 s) would
     * pass the deadline
     */
    private static void askAgain(String what, Exception e, BackOffExecution waits, long deadline) {
        long waitMillis = waits.nextBackOff();
        if (System.nanoTime() + waitMillis * 1_000_000 > deadline) {
            throw new IllegalStateException("cannot provision " + what + ": " + e.getMessage() + " (no answer for "
                    + UNANSWERED_PROVISIONING_WAIT.toSeconds() + " s)", e);
        }
        log.warn("no answer from JetStream while provisioning {} ({}); asking again in {} ms", what, e.getMessage(),
                waitMillis);
        sleep(waitMillis);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while provisioning streams", interrupted);
        }
    }

    /**
     * Creates the durable consumer if absent. An existing consumer is used as it is; a
     * different filter subject is refused, a different max_deliver logged at WARN. A
     * request JetStream does not answer, or answers "temporarily unavailable" (a cluster
     * electing its meta leader or placing the consumer under load: a coordinator exited
     * at start-up on "Timeout or no response", issue 43), is asked again for up to 30 s,
     * as streams and key-value buckets are.
     * @param declaration the consumer
     * @return the server's consumer info
     * @throws JetStreamPermissionException when the user may not create it
     * @throws IllegalStateException when the server refuses it (for example, its stream
     * is missing), or does not answer for 30 s
     */
    public ConsumerInfo declareConsumer(ConsumerDeclaration declaration) {
        String stream = declaration.stream();
        String durable = declaration.durable();
        Instant started = Instant.now();
        long deadline = System.nanoTime() + UNANSWERED_PROVISIONING_WAIT.toNanos();
        BackOffExecution waits = Backoffs.start(Duration.ofMillis(250), Duration.ofSeconds(2));
        while (true) {
            try {
                return createOrCheck(declaration);
            }
            catch (JetStreamApiException e) {
                permissionFailure("consumer " + durable + " on stream " + stream, "$JS.API.CONSUMER.CREATE." + stream,
                        started, e);
                if (!JetStreamErrors.isTemporarilyUnavailable(e)) {
                    throw new IllegalStateException(
                            "cannot provision consumer " + durable + " on stream " + stream + ": " + e.getMessage(), e);
                }
                askAgain("consumer " + durable + " on stream " + stream, e, waits, deadline);
            }
            catch (IOException e) {
                permissionFailure("consumer " + durable + " on stream " + stream, "$JS.API.CONSUMER.CREATE." + stream,
                        started, e);
                askAgain("consumer " + durable + " on stream " + stream, e, waits, deadline);
            }
        }
    }

    private ConsumerInfo createOrCheck(ConsumerDeclaration declaration) throws IOException, JetStreamApiException {
        String stream = declaration.stream();
        String durable = declaration.durable();
        Optional<ConsumerInfo> existing = consumerInfo(stream, durable);
        declaredConsumers.put(stream + "/" + durable, declaration);
        if (existing.isPresent()) {
            ConsumerConfiguration actual = existing.get().getConsumerConfiguration();
            if (!Objects.equals(actual.getFilterSubject(), declaration.filterSubject())) {
                // Consuming it would read another edge's events and leave this edge's
                // unread: refuse.
                throw new IllegalStateException("durable consumer " + durable + " on " + stream + " filters "
                        + actual.getFilterSubject() + ", not " + declaration.filterSubject() + ": two route edges "
                        + "sanitise to the same durable name; rename a group or pipeline (or delete the old "
                        + "consumer if its edge is gone)");
            }
            if (actual.getMaxDeliver() != declaration.configuration().getMaxDeliver()) {
                log.warn(
                        "consumer {} on {} exists with max_deliver={} (declared {}); parking follows the server's "
                                + "value",
                        durable, stream, actual.getMaxDeliver(), declaration.configuration().getMaxDeliver());
            }
            return existing.get();
        }
        ConsumerInfo created = jsm.addOrUpdateConsumer(stream, declaration.configuration());
        log.info("created durable consumer {} on stream {} (filter_subject={})", durable, stream,
                declaration.filterSubject());
        return created;
    }

    /**
     * Keeps a key-value bucket its user created ({@link KeyValueBuckets#createIfAbsent}):
     * its stream's configuration is kept, so that a bucket the servers lose under a
     * running node is declared again ({@link DeclarationKeeper}).
     * @param bucket the bucket, which exists
     * @param revisionsAreEpochs whether its revisions are epochs that must only grow (the
     * leader leases: a leader's epoch is the revision it took the lease at), so that a
     * bucket found gone back is lifted past the last revision seen
     * @throws IOException when the server does not answer
     * @throws JetStreamApiException when the server refuses (the bucket is absent)
     */
    public void keepBucket(String bucket, boolean revisionsAreEpochs) throws IOException, JetStreamApiException {
        KeyValueStatus status = connection.keyValueManagement().getStatus(bucket);
        declaredBuckets.put(bucket, new StreamDeclaration(status.getBackingStreamInfo().getConfiguration()));
        if (revisionsAreEpochs) {
            epochBuckets.add(bucket);
        }
    }

    /**
     * @param bucket a kept bucket
     * @return whether its revisions are epochs that must only grow
     */
    public boolean revisionsAreEpochs(String bucket) {
        return epochBuckets.contains(bucket);
    }

    /**
     * Stops keeping a bucket (its user closed it); the bucket stays on the server.
     * @param bucket the bucket
     */
    public void forgetBucket(String bucket) {
        declaredBuckets.remove(bucket);
    }

    /**
     * @return the key-value buckets declared here, by bucket name: their streams'
     * declarations
     */
    public Map<String, StreamDeclaration> declaredBuckets() {
        return new LinkedHashMap<>(declaredBuckets);
    }

    /**
     * Creates again a declared stream (or a bucket's) that the servers lost, its
     * sequences starting after the last one seen ({@code first_seq}, nats-server 2.10+):
     * a sequence is never used twice, so a consumer's acknowledgements, a state's
     * expected sequences and a leader lease's epochs (its revisions) stay below what
     * comes next. A stream another node created meanwhile is used as it is.
     * @param declaration the stream
     * @param firstSequence its first sequence, 1 when nothing was seen
     * @return the server's stream info
     * @throws IOException when the server does not answer
     * @throws JetStreamApiException when the server refuses it
     */
    public StreamInfo redeclare(StreamDeclaration declaration, long firstSequence)
            throws IOException, JetStreamApiException {
        Optional<StreamInfo> existing = streamInfo(declaration.name());
        if (existing.isPresent()) {
            return existing.get();
        }
        StreamConfiguration config = declaration.configuration();
        try {
            return creator.create(firstSequence > 1
                    ? StreamConfiguration.builder(config).firstSequence(firstSequence).build() : config);
        }
        catch (JetStreamApiException e) {
            Optional<StreamInfo> meanwhile = streamInfo(declaration.name());
            if (meanwhile.isPresent()) {
                return meanwhile.get();
            }
            throw e;
        }
    }

    /**
     * @return what this node knows of its streams' sequences (its PubAcks, the consumers'
     * ack floors), to tell what the servers lost
     */
    public StreamSequences sequences() {
        return sequences;
    }

    /**
     * @return where this node says what the servers lost
     */
    public JetStreamLosses losses() {
        return losses;
    }

    /**
     * @param name a stream name
     * @return its info, or empty when the stream does not exist
     * @throws IOException when the server does not answer
     * @throws JetStreamApiException when the server refuses the request
     */
    public Optional<StreamInfo> streamInfo(String name) throws IOException, JetStreamApiException {
        try {
            return Optional.of(jsm.getStreamInfo(name));
        }
        catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == JetStreamErrors.STREAM_NOT_FOUND) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /**
     * @param stream a stream name
     * @param durable a durable consumer name
     * @return its info, or empty when the consumer does not exist
     * @throws IOException when the server does not answer
     * @throws JetStreamApiException when the server refuses the request (for example, the
     * stream is missing)
     */
    public Optional<ConsumerInfo> consumerInfo(String stream, String durable)
            throws IOException, JetStreamApiException {
        try {
            return Optional.of(jsm.getConsumerInfo(stream, durable));
        }
        catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == JetStreamErrors.CONSUMER_NOT_FOUND) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /**
     * @return the streams declared so far, by name, in declaration order of first use
     */
    public Map<String, StreamDeclaration> declaredStreams() {
        return new LinkedHashMap<>(declaredStreams);
    }

    /**
     * Stops reporting a consumer in health and gauges (its pipeline was undeployed here).
     * The consumer stays on the server for whichever node runs the pipeline next.
     * @param declaration the consumer
     */
    public void forgetConsumer(ConsumerDeclaration declaration) {
        declaredConsumers.remove(declaration.stream() + "/" + declaration.durable());
    }

    /**
     * @return the durable consumers in use here (stream and durable)
     */
    public List<ConsumerDeclaration> declaredConsumers() {
        return new ArrayList<>(declaredConsumers.values());
    }

    /**
     * @return how existing streams differ from their declarations, by stream name (only
     * streams that differ)
     */
    public Map<String, StreamDrift> drift() {
        return Map.copyOf(drift);
    }

    /**
     * @return the JetStream management API of this connection
     */
    public JetStreamManagement management() {
        return jsm;
    }

    private void recordDrift(StreamDeclaration declaration, StreamConfiguration actual) {
        StreamDrift found = StreamDrift.between(declaration.configuration(), actual);
        if (found.isEmpty()) {
            drift.remove(declaration.name());
            return;
        }
        if (!found.equals(drift.put(declaration.name(), found))) {
            boolean fallback = actual.getDescription() != null
                    && actual.getDescription().startsWith(SMALL_STORE_FALLBACK)
                    && found.differences().stream().allMatch(d -> d.setting().equals("max_bytes"));
            if (fallback) {
                log.warn("stream {} exists with {}: a node created it bounded by max_age only because a server "
                        + "could not reserve its max_bytes (its description says so); give every nats-server more "
                        + "JetStream storage (max_file_store) and set max_bytes by hand (nats stream edit) to restore "
                        + "the byte ceiling", declaration.name(), found.describe());
            }
            else {
                log.warn("stream {} exists with {}; leaving it as the operator set it", declaration.name(),
                        found.describe());
            }
        }
    }

    private void permissionFailure(String object, String apiSubject, Instant since, Exception cause) {
        if (events == null) {
            return;
        }
        events.recentPermissionViolation("$JS.API", since).ifPresent(text -> {
            Matcher refused = REFUSED_SUBJECT.matcher(text);
            throw new JetStreamPermissionException(object, refused.find() ? refused.group(1) : apiSubject, text,
                    connection.getOptions().getInboxPrefix() + ">", cause);
        });
    }

}
