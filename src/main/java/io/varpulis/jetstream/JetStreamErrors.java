package io.varpulis.jetstream;

import io.nats.client.JetStreamApiException;

/**
 * The JetStream API error codes this project reacts to (nats-server's {@code errors.json}).
 */
public final class JetStreamErrors {

    /** {@code JSStreamNotFoundErr}: no such stream (also a missing key-value bucket, whose stream is absent). */
    public static final int STREAM_NOT_FOUND = 10059;

    /** {@code JSConsumerNotFoundErr}: no such consumer. */
    public static final int CONSUMER_NOT_FOUND = 10014;

    /** {@code JSNoMessageFoundErr}: no message at that sequence. */
    public static final int NO_MESSAGE_FOUND = 10037;

    /** {@code JSInsufficientResourcesErr}: the server cannot reserve what the stream asks for. */
    public static final int INSUFFICIENT_RESOURCES = 10023;

    /** {@code JSStorageResourcesExceededErr}: the account's JetStream storage is exceeded. */
    public static final int STORAGE_RESOURCES_EXCEEDED = 10047;

    /** {@code JSStreamReplicasNotSupportedErr}: replicas above 1 on a server that is not clustered. */
    public static final int REPLICAS_NOT_SUPPORTED = 10074;

    /**
     * {@code JSClusterNotAvailErr}, "JetStream system temporarily unavailable": a clustered JetStream without its
     * meta leader (just restarted, or electing): answered like no answer at all, and asked again.
     */
    public static final int TEMPORARILY_UNAVAILABLE = 10008;

    private JetStreamErrors() {
    }

    /**
     * @param e an API error
     * @return {@code true} when JetStream is briefly away (no meta leader) rather than refusing the request
     */
    public static boolean isTemporarilyUnavailable(JetStreamApiException e) {
        return e.getApiErrorCode() == TEMPORARILY_UNAVAILABLE;
    }

    /**
     * @param e an API error
     * @return {@code true} when it says the stream, bucket or consumer does not exist
     */
    public static boolean isNotFound(JetStreamApiException e) {
        return e.getApiErrorCode() == STREAM_NOT_FOUND || e.getApiErrorCode() == CONSUMER_NOT_FOUND;
    }
}
