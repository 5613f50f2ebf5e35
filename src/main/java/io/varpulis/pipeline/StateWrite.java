package io.varpulis.pipeline;

import io.nats.client.support.NatsJetStreamConstants;
import io.varpulis.transport.OutboundMessage;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One write of a {@link WriteChain}: its number in the chain, key and value
 * ({@code null}: a delete), the future its flush waits for, and where its last copy is.
 * Guarded by its chain's lock.
 */
final class StateWrite {

    /** Where a write's last copy is. */
    enum Status {

        /** Not on the wire (yet, or again). */
        QUEUED,
        /** On the wire, no answer yet. */
        SENT,
        /** No PubAck in time, or no leader to answer: it may still land. */
        UNANSWERED,
        /** Refused by the stream: this copy will never land. */
        REFUSED,
        /** Stored. */
        STORED

    }

    /**
     * A copy of a write to put on the wire.
     *
     * @param write the write
     * @param copy which copy of it this is (1 the first time)
     * @param message the message, with its id and expectation
     */
    record Send(StateWrite write, int copy, OutboundMessage message) {
    }

    private static final Map<String, String> DELETE_MARKER = Map.of(NatsJetStreamConstants.KV_OPERATION_HEADER_KEY,
            "DEL");

    final long number;

    final String key;

    final byte[] value;

    final CompletableFuture<Void> confirmed = new CompletableFuture<>();

    Status status = Status.QUEUED;

    /**
     * Whether it is the last write of its apply (an atomic batch never ends before it).
     */
    boolean endsApply;

    int copies;

    /** Refusals for itself (a limit), not for the chain. */
    int refusals;

    Throwable failure;

    long sentAt;

    private final String writer;

    StateWrite(String writer, long number, String key, byte[] value) {
        this.writer = writer;
        this.number = number;
        this.key = key;
        this.value = value;
    }

    /**
     * Puts a new copy of it on the wire: marked sent, its copies counted.
     * @param bucket its bucket
     * @param expectedSequence the bucket's last sequence it expects, or {@code null}
     * @param expectedId the bucket's last message id it expects, or {@code null}
     * @return the copy, as a message to {@code $KV.{bucket}.{key}} (a delete is an empty
     * {@code KV-Operation: DEL} message)
     */
    Send send(String bucket, Long expectedSequence, String expectedId) {
        status = Status.SENT;
        sentAt = System.nanoTime();
        copies++;
        return new Send(this, copies,
                new OutboundMessage("$KV." + bucket + "." + key, value == null ? new byte[0] : value, messageId(),
                        value == null ? DELETE_MARKER : Map.of(), expectedSequence, expectedId));
    }

    /**
     * @return the message id of its last copy: {@code {writer}:{n}} the first time, then
     * {@code {writer}:{n}.{copy}} (a leader that stepped down may keep the first copy's
     * id "in process" for up to the duplicate window without storing it: nats-server 2.12
     * held 36 such ids for over a minute after one step-down, when copies were sent again
     * under the same id)
     */
    String messageId() {
        return writer + ":" + number + (copies > 1 ? "." + copies : "");
    }

    /**
     * @param writer a writer's identity
     * @param messageId a message id found in the bucket
     * @return the number of that writer's write with that id (any copy), 0 for its fence,
     * -1 when the id is not that writer's
     */
    static long numberOf(String writer, String messageId) {
        String prefix = writer + ":";
        if (messageId == null || !messageId.startsWith(prefix)) {
            return -1;
        }
        String number = messageId.substring(prefix.length());
        int copy = number.indexOf('.');
        try {
            return Long.parseLong(copy < 0 ? number : number.substring(0, copy));
        }
        catch (NumberFormatException e) {
            return -1;
        }
    }

}
