package io.varpulis.transport;

import io.nats.client.JetStreamApiException;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A publish the substrate did not confirm: on JetStream no PubAck arrived in time, no
 * server answered, or the stream refused the message. The event may or may not be stored;
 * the caller decides.
 * <p>
 * {@link #kind()} tells the two cases the route ingress treats differently (SPEC section
 * 9): a broker that is briefly away ({@link Kind#UNAVAILABLE}: publish again with the
 * same {@code Nats-Msg-Id}, the duplicate window makes it safe, and never spend an
 * event's delivery budget on it) and a stream that said no ({@link Kind#REFUSED}: the
 * same publish would be refused again).
 */
public class PublishException extends RuntimeException {

    /** What kind of failure a publish met. */
    public enum Kind {

        /**
         * The broker did not answer: no responders (503: no stream leader during an
         * election, no stream for the subject), no PubAck within the publish timeout, a
         * full window of outstanding PubAcks, a connection that is reconnecting or
         * closed. Retrying later can succeed; the message may even have been stored.
         */
        UNAVAILABLE,
        /**
         * The stream or the client refused the message: a JetStream API error (wrong
         * expected last sequence, limits, a sealed stream) or a message over the server's
         * max_payload. The same publish would fail again.
         */
        REFUSED

    }

    /**
     * JetStream API errors that mean "not now" rather than "no":
     * {@code JSClusterNotAvailErr} (10008, JetStream system temporarily unavailable) and
     * {@code JSClusterNotLeaderErr} (10009), answered during elections, and
     * {@code JSStreamDuplicateMessageConflict} (10158, duplicate message id is in
     * process), answered to a publish tried again while the first one is still being
     * replicated: that one is likely to be stored.
     */
    private static final Set<Integer> TRANSIENT_API_ERRORS = Set.of(10008, 10009, 10158);

    private final Kind kind;

    private final int apiErrorCode;

    private final transient CompletableFuture<PublishReceipt> late;

    private final boolean lateMayCome;

    /**
     * A failure classified from its cause (see {@link #classify(Throwable)}), with no
     * late receipt to wait for.
     * @param subject the subject of the failed publish
     * @param reason what failed
     * @param cause the client's error, or {@code null}
     */
    public PublishException(String subject, String reason, Throwable cause) {
        this(subject, reason, cause, classify(cause), null);
    }

    /**
     * @param subject the subject of the failed publish
     * @param reason what failed
     * @param cause the client's error, or {@code null}
     * @param kind unavailable or refused
     * @param late completes with the receipt when the PubAck comes after the publish
     * timeout (the message was stored late), or {@code null} when none can come
     */
    public PublishException(String subject, String reason, Throwable cause, Kind kind,
            CompletableFuture<PublishReceipt> late) {
        super("publish to " + subject + " was not confirmed: " + reason, cause);
        this.kind = kind;
        this.apiErrorCode = apiError(cause).map(JetStreamApiException::getApiErrorCode).orElse(0);
        this.lateMayCome = late != null;
        this.late = late != null ? late
                : CompletableFuture.failedFuture(new IllegalStateException("no late PubAck can come"));
    }

    /**
     * @return whether the publish timed out with its PubAck still able to come
     * ({@link #late()}): the message may still be stored, and publishing another copy now
     * would only meet it in process
     */
    public boolean lateMayCome() {
        return lateMayCome;
    }

    /**
     * @return unavailable (retry later) or refused (retrying cannot help)
     */
    public Kind kind() {
        return kind;
    }

    /**
     * @return {@code true} when the broker was unavailable: the same publish may succeed
     * later
     */
    public boolean isUnavailable() {
        return kind == Kind.UNAVAILABLE;
    }

    /**
     * @return the JetStream API error code of a refusal (10071 wrong last sequence, ...),
     * 0 when there is none
     */
    public int apiErrorCode() {
        return apiErrorCode;
    }

    /**
     * The PubAck of a publish that timed out, should it still come: the message was then
     * stored after all (after a reconnect or an election), and callers that count stored
     * events count it then. It is awaited for
     * {@code varpulis.nats.jetstream.late-pub-ack-window} (the connection's request
     * cleanup interval).
     * @return completes with the late receipt, exceptionally when none comes or the
     * publish was refused
     */
    public CompletableFuture<PublishReceipt> late() {
        return late;
    }

    /**
     * Classifies a client error: a JetStream API error is a refusal unless it is one of
     * the election-time errors, a client-side refusal ({@link IllegalArgumentException}:
     * over max_payload, a bad subject) is a refusal, anything else (no responders,
     * timeouts, cancelled requests, a reconnecting or closed connection) means the broker
     * was unavailable.
     * @param error the error, possibly wrapped, or {@code null}
     * @return its kind
     */
    public static Kind classify(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof PublishException publish) {
                return publish.kind();
            }
            if (t instanceof JetStreamApiException api) {
                return TRANSIENT_API_ERRORS.contains(api.getApiErrorCode()) ? Kind.UNAVAILABLE : Kind.REFUSED;
            }
            if (t instanceof IllegalArgumentException) {
                return Kind.REFUSED;
            }
        }
        return Kind.UNAVAILABLE;
    }

    /**
     * @param code a JetStream API error code
     * @return {@code true} when it is one of the errors answered during elections, which
     * mean "not now"
     */
    public static boolean isTransientApiError(int code) {
        return TRANSIENT_API_ERRORS.contains(code);
    }

    /**
     * @param error an error, possibly wrapped in {@code CompletionException}s
     * @return the first {@code PublishException} among it and its causes
     */
    public static Optional<PublishException> find(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof PublishException publish) {
                return Optional.of(publish);
            }
        }
        return Optional.empty();
    }

    private static Optional<JetStreamApiException> apiError(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof JetStreamApiException api) {
                return Optional.of(api);
            }
        }
        return Optional.empty();
    }

}
