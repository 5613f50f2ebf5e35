package io.varpulis.pipeline;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValueManagement;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.KeyValueStatus;
import io.nats.client.api.MessageGetRequest;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import io.nats.client.api.StreamState;
import io.nats.client.support.NatsJetStreamConstants;
import io.varpulis.jetstream.KeyValueBuckets;
import io.varpulis.pipeline.KeyValueState.StateException;
import io.varpulis.pipeline.KeyValueState.StateFencedException;
import io.varpulis.pipeline.KeyValueState.StateUnavailableException;
import io.varpulis.support.Backoffs;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishException;
import io.varpulis.transport.PublishReceipt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.util.backoff.BackOffExecution;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fence of a pipeline's state bucket (SPEC section 9): who owns the bucket. Opening
 * the state writes the fence key ({@value JetStreamKeyValueState#FENCE_KEY}:
 * {@code {"epoch": N, "writer": "...", "opened_at": "..."}}) expecting the bucket's last
 * sequence, so that it lands only on the state the open read and every earlier writer's
 * next write is refused; an open whose epoch is below the fence's is refused. The fence
 * is a delete marker with a body ({@code KV-Operation: DEL}), so that key-value clients
 * see only the pipeline's own keys; it lasts the bucket's TTL after the last open, like
 * any key (a stale writer is fenced by its write chain, whatever the fence's age).
 */
final class StateFence {

    private static final Logger log = LoggerFactory.getLogger(StateFence.class);

    /** The sequence a 10071 refusal names: {@code wrong last sequence: N}. */
    private static final Pattern LAST_SEQUENCE = Pattern.compile("wrong last sequence: (\\d+)");

    /**
     * Opens that find the bucket written meanwhile try again this often before giving up.
     */
    private static final int OPEN_ATTEMPTS = 20;

    private static final Map<String, String> DELETE_MARKER = Map.of(NatsJetStreamConstants.KV_OPERATION_HEADER_KEY,
            "DEL");

    private StateFence() {
    }

    /**
     * The fence written.
     *
     * @param sequence where it landed: the chain's write 0
     * @param empty whether the bucket held no key then (the cache then knows every key)
     * @param atomicPublish whether the bucket takes atomic batches ({@code allow_atomic}:
     * set when this product creates it on nats-server 2.12 or later)
     */
    record Taken(long sequence, boolean empty, boolean atomicPublish) {
    }

    /**
     * Creates the bucket when absent, then takes it over by writing the fence, trying
     * again for about six timeouts while the server does not answer or the bucket is
     * written meanwhile.
     * @param connection the connection (bucket management, leader reads)
     * @param transport publishes the fence
     * @param bucket the bucket
     * @param epoch the placement epoch opening it
     * @param writer the writer's identity (the fence's message id is {@code writer:0})
     * @param settings TTL, replicas, timeout
     * @return where the fence landed
     * @throws StateFencedException when a higher epoch holds the bucket, or it keeps
     * being written by another writer
     * @throws StateUnavailableException when the server did not answer in time
     * @throws StateException when the bucket cannot be created or the fence is refused
     */
    static Taken take(Connection connection, ClusterTransport transport, String bucket, long epoch, String writer,
            JetStreamKeyValueState.Settings settings) {
        String stream = "KV_" + bucket;
        try {
            createIfAbsent(connection, bucket, settings);
            long deadline = System.nanoTime() + settings.timeout().multipliedBy(6).toNanos();
            BackOffExecution waits = Backoffs.start(Duration.ofMillis(100), Duration.ofSeconds(4));
            // The last sequence a 10071 refusal named: the fence is written again
            // expecting it at once. A stream info read after a refusal can keep answering
            // an older sequence while the leader still applies writes it accepted (a slow
            // disk behind it: issue 30, 44 fences refused for 105 s with nothing else
            // writing).
            Long reported = null;
            for (int attempt = 1;; attempt++) {
                String failure;
                try {
                    StreamInfo info = connection.jetStreamManagement().getStreamInfo(stream);
                    StreamState before = info.getStreamState();
                    Optional<MessageInfo> current = holder(connection, bucket, settings.timeout());
                    long heldBy = current.map(StateReads::epochOf).orElse(-1L);
                    if (heldBy > epoch) {
                        throw new StateFencedException(
                                "state bucket " + bucket + " is held by placement epoch " + heldBy + " ("
                                        + current.map(m -> new String(m.getData(), StandardCharsets.UTF_8)).orElse("")
                                        + "); this placement has epoch " + epoch + " and must not write it",
                                null);
                    }
                    long expected = reported != null ? reported : before.getLastSequence();
                    PublishReceipt receipt = transport
                        .publish(new OutboundMessage(subject(bucket),
                                StateReads.fenceValue(epoch, writer, Instant.now()), writer + ":0", DELETE_MARKER,
                                expected, null))
                        .get(settings.timeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
                    long keys = before.getMsgCount() - (current.isPresent() ? 1 : 0);
                    boolean atomicPublish = info.getConfiguration().getAllowAtomicPublish();
                    if (!atomicPublish && !connection.getServerInfo().isOlderThanVersion("2.12.0")) {
                        log.warn("state bucket {} takes no atomic batches (allow_atomic: false; created by an earlier "
                                + "version): each write of an apply is stored on its own, so a placement that fences "
                                + "this writer, or a crash, between two of them leaves half an apply stored; to have "
                                + "each apply stored whole, set allow_atomic on stream KV_{} (a stream update; it "
                                + "takes effect when the pipeline's state is next opened)", bucket, bucket);
                    }
                    log.info(
                            "opened state bucket {} as writer {} (placement epoch {}, {} key(s), fence at sequence {})",
                            bucket, writer, epoch, keys, receipt.sequence());
                    // Known empty only when the count read is the count the fence landed
                    // on.
                    return new Taken(receipt.sequence(), keys == 0 && expected == before.getLastSequence(),
                            atomicPublish);
                }
                catch (ExecutionException e) {
                    PublishException refused = PublishException.find(e).orElse(null);
                    if (refused != null && refused.apiErrorCode() == Chaining.WRONG_LAST_SEQUENCE) {
                        if (attempt >= OPEN_ATTEMPTS) {
                            throw new StateFencedException("state bucket " + bucket + " kept being written by "
                                    + "another writer while placement epoch " + epoch + " opened it (" + attempt
                                    + " tries)", e);
                        }
                        Long named = reportedLastSequence(e);
                        failure = "written meanwhile";
                        if (named != null && !named.equals(reported)) {
                            // Another writer's message landed, or the read was behind:
                            // expect what the leader has now.
                            reported = named;
                            continue;
                        }
                        reported = null;
                    }
                    else if (refused != null && !refused.isUnavailable()) {
                        throw new StateException(
                                "cannot write the fence of bucket " + bucket + ": " + refused.getMessage(), e);
                    }
                    else {
                        failure = String.valueOf(e.getCause());
                    }
                }
                catch (TimeoutException | StateUnavailableException e) {
                    failure = e.toString();
                }
                long wait = waits.nextBackOff();
                if (System.nanoTime() + wait * 1_000_000 > deadline) {
                    throw new StateUnavailableException("cannot open state bucket " + bucket + ": " + failure, null);
                }
                Thread.sleep(wait);
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StateUnavailableException("interrupted while opening state bucket " + bucket, e);
        }
        catch (IOException | JetStreamApiException | IllegalStateException e) {
            throw new StateException("cannot open key-value bucket " + bucket + ": " + e.getMessage(), e);
        }
    }

    /**
     * Reads the fence from the bucket's stream leader.
     * @param connection the connection
     * @param bucket the bucket
     * @param timeout how long the leader may take
     * @return the fence message, or empty when there is none (never written, or gone with
     * the TTL)
     * @throws StateUnavailableException when the leader did not answer
     * @throws KeyValueState.StateLostException when the bucket is gone
     */
    static Optional<MessageInfo> holder(Connection connection, String bucket, Duration timeout) {
        return StateReads.leaderRead(connection, "KV_" + bucket, bucket, timeout,
                MessageGetRequest.lastForSubject(subject(bucket)), "read the fence");
    }

    /**
     * Creates the bucket, taking atomic batches on nats-server 2.12 or later (the
     * key-value API has no such setting: its backing stream is created with it).
     */
    private static void createIfAbsent(Connection connection, String bucket, JetStreamKeyValueState.Settings settings)
            throws IOException, JetStreamApiException, InterruptedException {
        KeyValueManagement kvm = connection.keyValueManagement();
        KeyValueBuckets.Create create = connection.getServerInfo().isOlderThanVersion("2.12.0") ? kvm::create
                : config -> new KeyValueStatus(connection.jetStreamManagement()
                    .addStream(
                            StreamConfiguration.builder(config.getBackingConfig()).allowAtomicPublish(true).build()));
        KeyValueBuckets.createIfAbsent(kvm,
                KeyValueConfiguration.builder()
                    .name(bucket)
                    .maxHistoryPerKey(1)
                    .ttl(settings.ttl())
                    .storageType(StorageType.File)
                    .replicas(settings.replicas())
                    .description("Varpulis pipeline state")
                    .build(),
                create);
    }

    /**
     * The last sequence a 10071 refusal names ({@code wrong last sequence: N}), or
     * {@code null}.
     */
    private static Long reportedLastSequence(Throwable refusal) {
        for (Throwable t = refusal; t != null; t = t.getCause()) {
            if (t instanceof JetStreamApiException api && api.getErrorDescription() != null) {
                Matcher matcher = LAST_SEQUENCE.matcher(api.getErrorDescription());
                if (matcher.find()) {
                    return Long.parseLong(matcher.group(1));
                }
            }
        }
        return null;
    }

    private static String subject(String bucket) {
        return "$KV." + bucket + "." + JetStreamKeyValueState.FENCE_KEY;
    }

}
