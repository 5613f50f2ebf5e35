package io.varpulis.transport;

import io.nats.client.support.NatsJetStreamConstants;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;

/**
 * The messages of one JetStream atomic batch (ADR-50, nats-server 2.12+): every message
 * names the batch ({@code Nats-Batch-Id}) and its place in it
 * ({@code Nats-Batch-Sequence}, from 1); the last also says {@code Nats-Batch-Commit: 1},
 * and only it is answered, with the PubAck of the whole batch. The others go as plain
 * publishes without a reply, over the same connection, so that the server receives them
 * in order before the commit.
 */
final class AtomicBatch {

    private final List<OutboundMessage> messages;

    private final String id = UUID.randomUUID().toString();

    /**
     * @param messages the batch, in order, at least two
     * @throws IllegalArgumentException when a message other than the first expects a
     * sequence, or any expects a message id (the server refuses both in a batch)
     */
    AtomicBatch(List<OutboundMessage> messages) {
        for (int i = 0; i < messages.size(); i++) {
            OutboundMessage message = messages.get(i);
            if (message.expectedLastMessageId() != null || i > 0 && message.expectedLastSequence() != null) {
                throw new IllegalArgumentException("in an atomic batch only the first message may expect a last "
                        + "sequence, and none a last message id (message " + (i + 1) + " to " + message.subject()
                        + ")");
            }
        }
        this.messages = messages;
    }

    /**
     * @return the messages before the commit, every header in
     * {@link OutboundMessage#headers()} (message id and expected last sequence too), to
     * publish without a reply
     */
    List<OutboundMessage> parts() {
        return IntStream.range(0, messages.size() - 1).mapToObj(this::part).toList();
    }

    /**
     * @return the last message with the batch's headers and the commit, to publish as a
     * JetStream publish (its message id travels as the publish's)
     */
    OutboundMessage commit() {
        OutboundMessage last = messages.get(messages.size() - 1);
        Map<String, String> headers = batchHeaders(messages.size());
        headers.put(NatsJetStreamConstants.NATS_BATCH_COMMIT_HDR, "1");
        return new OutboundMessage(last.subject(), last.data(), last.messageId(), headers, null, null);
    }

    private OutboundMessage part(int index) {
        OutboundMessage message = messages.get(index);
        Map<String, String> values = batchHeaders(index + 1);
        if (message.messageId() != null) {
            values.put(NatsJetStreamConstants.MSG_ID_HDR, message.messageId());
        }
        if (message.expectedLastSequence() != null) {
            values.put(NatsJetStreamConstants.EXPECTED_LAST_SEQ_HDR, message.expectedLastSequence().toString());
        }
        return new OutboundMessage(message.subject(), message.data(), null, values, null, null);
    }

    private Map<String, String> batchHeaders(int sequence) {
        Map<String, String> headers = new HashMap<>(messages.get(sequence - 1).headers());
        headers.put(NatsJetStreamConstants.NATS_BATCH_ID_HDR, id);
        headers.put(NatsJetStreamConstants.NATS_BATCH_SEQUENCE_HDR, Integer.toString(sequence));
        return headers;
    }

}
