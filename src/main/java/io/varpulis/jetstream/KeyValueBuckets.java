package io.varpulis.jetstream;

import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValueManagement;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.KeyValueStatus;

import java.io.IOException;
import java.time.Duration;

/**
 * Creates a key-value bucket when it is absent, with jnats' own {@link KeyValueManagement}, safely when several nodes
 * start at once (two coordinators of the Helm chart, the workers of one pipeline group): a create that loses the
 * race, or that the server answers before a three-server cluster has placed the bucket's stream, is followed by
 * reading the bucket until it is visible (up to {@value #VISIBLE_WITHIN_SECONDS} s). An existing bucket is never
 * updated (ADR-007: created if absent, never updated); its own settings win.
 */
public final class KeyValueBuckets {

    /** How long a bucket created by this or another node may stay invisible while a cluster places its stream. */
    static final int VISIBLE_WITHIN_SECONDS = 10;

    private static final long POLL_MILLIS = 100;

    private KeyValueBuckets() {
    }

    /**
     * @param kvm    the key-value management API of a connection
     * @param config the bucket to create when absent
     * @return the bucket's status, as the server has it
     * @throws JetStreamApiException when the server refuses the bucket for another reason than a concurrent create
     *                               (permissions, resources), or it is still not visible after
     *                               {@value #VISIBLE_WITHIN_SECONDS} s
     * @throws IOException           when the server does not answer
     */
    public static KeyValueStatus createIfAbsent(KeyValueManagement kvm, KeyValueConfiguration config)
            throws IOException, JetStreamApiException {
        try {
            return kvm.getStatus(config.getBucketName());
        } catch (JetStreamApiException e) {
            if (e.getApiErrorCode() != JetStreamErrors.STREAM_NOT_FOUND) {
                throw e;
            }
        }
        try {
            return kvm.create(config);
        } catch (JetStreamApiException refused) {
            return whenVisible(kvm, config.getBucketName(), refused);
        }
    }

    private static KeyValueStatus whenVisible(KeyValueManagement kvm, String bucket, JetStreamApiException refused)
            throws IOException, JetStreamApiException {
        long deadline = System.nanoTime() + Duration.ofSeconds(VISIBLE_WITHIN_SECONDS).toNanos();
        while (true) {
            try {
                return kvm.getStatus(bucket);
            } catch (JetStreamApiException e) {
                if (e.getApiErrorCode() != JetStreamErrors.STREAM_NOT_FOUND || System.nanoTime() > deadline) {
                    // The create's own refusal says why (permissions, resources); the read's says it is absent.
                    refused.addSuppressed(e);
                    throw refused;
                }
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for key-value bucket " + bucket, interrupted);
            }
        }
    }
}
