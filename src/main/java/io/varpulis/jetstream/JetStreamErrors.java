package io.varpulis.jetstream;

import io.nats.client.JetStreamApiException;

import java.util.Locale;

/**
 * The JetStream API error codes this project reacts to (nats-server's
 * {@code errors.json}).
 */
public final class JetStreamErrors {

    /**
     * {@code JSStreamNotFoundErr}: no such stream (also a missing key-value bucket, whose
     * stream is absent).
     */
    public static final int STREAM_NOT_FOUND = 10059;

    /** {@code JSConsumerNotFoundErr}: no such consumer. */
    public static final int CONSUMER_NOT_FOUND = 10014;

    /** {@code JSNoMessageFoundErr}: no message at that sequence. */
    public static final int NO_MESSAGE_FOUND = 10037;

    /**
     * {@code JSClusterNoPeersErr}, "no suitable peers for placement": a cluster has fewer
     * servers able to hold the stream than its replicas, either for lack of room ("...,
     * insufficient storage" when max_bytes cannot be reserved on enough servers) or for
     * lack of servers (replicas above the cluster's size).
     */
    public static final int NO_SUITABLE_PEERS = 10005;

    /**
     * {@code JSInsufficientResourcesErr}: the server cannot reserve what the stream asks
     * for.
     */
    public static final int INSUFFICIENT_RESOURCES = 10023;

    /**
     * {@code JSStorageResourcesExceededErr}: the account's JetStream storage is exceeded.
     */
    public static final int STORAGE_RESOURCES_EXCEEDED = 10047;

    /**
     * {@code JSStreamReplicasNotSupportedErr}: replicas above 1 on a server that is not
     * clustered.
     */
    public static final int REPLICAS_NOT_SUPPORTED = 10074;

    /**
     * {@code JSClusterNotAvailErr}, "JetStream system temporarily unavailable": a
     * clustered JetStream without its meta leader (just restarted, or electing): answered
     * like no answer at all, and asked again.
     */
    public static final int TEMPORARILY_UNAVAILABLE = 10008;

    private JetStreamErrors() {
    }

    /**
     * @param e an API error
     * @return {@code true} when JetStream is briefly away (no meta leader) rather than
     * refusing the request
     */
    public static boolean isTemporarilyUnavailable(JetStreamApiException e) {
        return e.getApiErrorCode() == TEMPORARILY_UNAVAILABLE;
    }

    /**
     * @param e an API error to a stream or bucket create
     * @return {@code true} when the server, or too many servers of a cluster, could not
     * place it: no room for its max_bytes (10023, 10047, and 10005 on a cluster) or fewer
     * servers than its replicas (10005)
     */
    public static boolean isPlacementRefused(JetStreamApiException e) {
        int code = e.getApiErrorCode();
        return code == NO_SUITABLE_PEERS || code == INSUFFICIENT_RESOURCES || code == STORAGE_RESOURCES_EXCEEDED;
    }

    /**
     * @param e an API error to a stream create
     * @return {@code true} when the refusal is about room for its max_bytes only (10023,
     * 10047, and 10005 whose description says {@code insufficient storage}), not about
     * too few servers or a peer offline (10005 otherwise): a create without max_bytes may
     * then succeed
     */
    public static boolean isStorageRefused(JetStreamApiException e) {
        int code = e.getApiErrorCode();
        String description = e.getErrorDescription();
        return code == INSUFFICIENT_RESOURCES || code == STORAGE_RESOURCES_EXCEEDED || code == NO_SUITABLE_PEERS
                && description != null && description.toLowerCase(Locale.ROOT).contains("insufficient storage");
    }

    /**
     * @param e an API error
     * @return {@code true} when it says the stream, bucket or consumer does not exist
     */
    public static boolean isNotFound(JetStreamApiException e) {
        return e.getApiErrorCode() == STREAM_NOT_FOUND || e.getApiErrorCode() == CONSUMER_NOT_FOUND;
    }

}
