package io.varpulis.jetstream;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.KeyValueManagement;
import io.nats.client.KeyValueOptions;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.KeyValueStatus;
import io.varpulis.support.Backoffs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.util.backoff.BackOffExecution;

import java.io.IOException;
import java.time.Duration;

/**
 * Creates a key-value bucket when it is absent, with jnats' own
 * {@link KeyValueManagement}, safely when several nodes start at once (two coordinators
 * of the Helm chart, the workers of one pipeline group): a create that loses the race, or
 * that the server answers before a three-server cluster has placed the bucket's stream,
 * is followed by reading the bucket until it is visible (up to
 * {@value #VISIBLE_WITHIN_SECONDS} s); a request JetStream does not answer, or answers
 * "temporarily unavailable" (a cluster electing the bucket's or its meta leader), is
 * asked again for up to 30 s. An existing bucket is never updated (ADR-007: created if
 * absent, never updated); its own settings win.
 */
public final class KeyValueBuckets {

    /**
     * How long a bucket created by this or another node may stay invisible while a
     * cluster places its stream and elects its leader: behind a slow disk (issue 30: 100
     * ms per fsync on one server) that took over 10 s, and a worker starting meanwhile
     * exited.
     */
    static final int VISIBLE_WITHIN_SECONDS = 30;

    private static final long POLL_MILLIS = 100;

    private static final Logger log = LoggerFactory.getLogger(KeyValueBuckets.class);

    private KeyValueBuckets() {
    }

    /** Creates a bucket ({@link KeyValueManagement#create} or an equivalent). */
    @FunctionalInterface
    public interface Create {

        /**
         * @param config the bucket
         * @return its status once created
         * @throws IOException when the server does not answer
         * @throws JetStreamApiException when it refuses
         */
        KeyValueStatus create(KeyValueConfiguration config) throws IOException, JetStreamApiException;

    }

    /**
     * @param kvm the key-value management API of a connection
     * @param config the bucket to create when absent
     * @return the bucket's status, as the server has it
     * @throws JetStreamApiException when the server refuses the bucket for another reason
     * than a concurrent create (permissions, resources), or it is still not visible after
     * {@value #VISIBLE_WITHIN_SECONDS} s
     * @throws IOException when the server does not answer for 30 s
     * @throws IllegalStateException when fewer servers than the bucket's replicas can
     * hold it (no suitable peers, insufficient storage: 10005, 10023, 10047); the message
     * names the replicas
     */
    public static KeyValueStatus createIfAbsent(KeyValueManagement kvm, KeyValueConfiguration config)
            throws IOException, JetStreamApiException {
        return createIfAbsent(kvm, config, kvm::create);
    }

    /**
     * As {@link #createIfAbsent(KeyValueManagement, KeyValueConfiguration)}, creating the
     * bucket with {@code create}: for a bucket whose stream needs a setting the key-value
     * API does not offer (from the configuration's
     * {@link KeyValueConfiguration#getBackingConfig() backing stream}).
     * @param kvm the key-value management API of a connection (reads the bucket)
     * @param config the bucket to create when absent
     * @param create creates it
     * @return the bucket's status, as the server has it
     * @throws JetStreamApiException as the other
     * @throws IOException as the other
     */
    public static KeyValueStatus createIfAbsent(KeyValueManagement kvm, KeyValueConfiguration config, Create create)
            throws IOException, JetStreamApiException {
        long deadline = System.nanoTime() + JetStreamAdmin.UNANSWERED_PROVISIONING_WAIT.toNanos();
        BackOffExecution waits = Backoffs.start(Duration.ofMillis(250), Duration.ofSeconds(2));
        while (true) {
            try {
                try {
                    return createOrRead(kvm, config, create);
                }
                catch (JetStreamApiException e) {
                    if (!JetStreamErrors.isTemporarilyUnavailable(e)) {
                        throw e;
                    }
                    throw new IOException(e.getMessage(), e);
                }
            }
            catch (IOException e) {
                // No answer: a cluster electing the bucket stream's leader (a server
                // killed as a node starts) or its
                // meta leader. Asked again, as stream provisioning does; a create done
                // meanwhile is then read.
                long waitMillis = waits.nextBackOff();
                if (System.nanoTime() + waitMillis * 1_000_000 > deadline) {
                    throw new IOException(
                            e.getMessage() + " (no answer about key-value bucket " + config.getBucketName() + " for "
                                    + JetStreamAdmin.UNANSWERED_PROVISIONING_WAIT.toSeconds() + " s)",
                            e);
                }
                log.warn("no answer from JetStream about key-value bucket {} ({}); asking again in {} ms",
                        config.getBucketName(), e.getMessage(), waitMillis);
                sleep(waitMillis, config.getBucketName());
            }
        }
    }

    private static KeyValueStatus createOrRead(KeyValueManagement kvm, KeyValueConfiguration config, Create create)
            throws IOException, JetStreamApiException {
        try {
            return kvm.getStatus(config.getBucketName());
        }
        catch (JetStreamApiException e) {
            if (e.getApiErrorCode() != JetStreamErrors.STREAM_NOT_FOUND) {
                throw e;
            }
        }
        try {
            return create.create(config);
        }
        catch (JetStreamApiException refused) {
            if (JetStreamErrors.isPlacementRefused(refused)) {
                // Not a concurrent create: waiting for the bucket to appear cannot help.
                throw new IllegalStateException("key-value bucket " + config.getBucketName() + " asks for "
                        + config.getReplicas() + " replica(s) and JetStream cannot place it (" + refused.getMessage()
                        + "): run at least " + config.getReplicas() + " JetStream servers with free store "
                        + "(max_file_store) in the cluster, or set varpulis.nats.jetstream.replicas (env "
                        + "VARPULIS_NATS_JETSTREAM_REPLICAS) to the number of servers", refused);
            }
            return whenVisible(kvm, config.getBucketName(), refused);
        }
    }

    /**
     * Opens a bucket that {@link #createIfAbsent} made or found, as jnats'
     * {@code Connection.keyValue} does: with a read of its stream info. A bucket just
     * created on a three-server cluster can be unknown for a moment to the server that
     * answers that read (its stream's leader still being elected: "stream not found",
     * 10059, which jnats reports as an {@link IOException}); issue 30's slow-disk runs
     * saw a worker exit at start-up on it, 1.2 s after its connection. A read JetStream
     * does not answer in time (a three-server nats-server 2.9 placing several R3 streams
     * at once as four nodes start: a worker exited on it) is made again too, with a WARN.
     * Both for up to {@value #VISIBLE_WITHIN_SECONDS} s.
     * @param connection the connection
     * @param bucket the bucket
     * @param options the key-value options, or {@code null} for jnats' defaults
     * @return the bucket
     * @throws IOException when JetStream does not answer, or the bucket stays unknown,
     * for {@value #VISIBLE_WITHIN_SECONDS} s; or at once when it refuses the read for
     * another reason
     */
    public static KeyValue open(Connection connection, String bucket, KeyValueOptions options) throws IOException {
        long deadline = System.nanoTime() + Duration.ofSeconds(VISIBLE_WITHIN_SECONDS).toNanos();
        BackOffExecution waits = Backoffs.start(Duration.ofMillis(POLL_MILLIS), Duration.ofSeconds(2));
        while (true) {
            long waitMillis;
            try {
                return options == null ? connection.keyValue(bucket) : connection.keyValue(bucket, options);
            }
            catch (IOException e) {
                boolean unknownYet = e.getCause() instanceof JetStreamApiException api
                        && api.getApiErrorCode() == JetStreamErrors.STREAM_NOT_FOUND;
                boolean unanswered = !(e.getCause() instanceof JetStreamApiException);
                if (!(unknownYet || unanswered) || System.nanoTime() > deadline) {
                    throw e;
                }
                waitMillis = unknownYet ? POLL_MILLIS : waits.nextBackOff();
                if (unanswered) {
                    log.warn("no answer from JetStream opening key-value bucket {} ({}); asking again in {} ms", bucket,
                            e.getMessage(), waitMillis);
                }
            }
            sleep(waitMillis, bucket);
        }
    }

    private static KeyValueStatus whenVisible(KeyValueManagement kvm, String bucket, JetStreamApiException refused)
            throws IOException, JetStreamApiException {
        long deadline = System.nanoTime() + Duration.ofSeconds(VISIBLE_WITHIN_SECONDS).toNanos();
        while (true) {
            try {
                return kvm.getStatus(bucket);
            }
            catch (JetStreamApiException e) {
                if (e.getApiErrorCode() != JetStreamErrors.STREAM_NOT_FOUND || System.nanoTime() > deadline) {
                    // The create's own refusal says why (permissions, resources); the
                    // read's says it is absent.
                    refused.addSuppressed(e);
                    throw refused;
                }
            }
            sleep(POLL_MILLIS, bucket);
        }
    }

    private static void sleep(long millis, String bucket) throws IOException {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for key-value bucket " + bucket, interrupted);
        }
    }

}
