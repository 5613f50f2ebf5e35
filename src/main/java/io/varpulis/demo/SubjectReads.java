package io.varpulis.demo;

import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.api.MessageGetRequest;
import io.nats.client.api.MessageInfo;
import io.nats.client.support.NatsJetStreamConstants;
import io.varpulis.jetstream.JetStreamErrors;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventBatch;
import io.varpulis.pipeline.EventCodec;

import java.io.IOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What a subject of the routing stream carries, for the demo's report: read from the
 * stream's leader, one message after the other ({@code $JS.API.STREAM.MSG.GET} with
 * {@code next_by_subj}, which only the leader answers), never through a consumer. The
 * server places a consumer on any replica of the stream (an ordered consumer is R1), and
 * a replica far behind delivers only what it has stored: a server whose fsync is slow,
 * once it no longer leads the stream, is minutes behind (issue 41, the slow-disk run with
 * the slow-leader step-down on, where the report read 288 of 334 messages, then nothing
 * for 5 s).
 */
final class SubjectReads {

    /** How long the leader may take to answer one read. */
    static final Duration READ_TIMEOUT = Duration.ofSeconds(5);

    private SubjectReads() {
    }

    /**
     * What the distinct messages of a subject carry.
     *
     * @param messages distinct {@code Nats-Msg-Id}s
     * @param events events in them: a batch's elements, 1 for any other message
     */
    record Carried(long messages, long events) {
    }

    /**
     * Counts the distinct {@code Nats-Msg-Id}s on a subject of
     * {@value VarpulisJetStream#ROUTING_STREAM} and the events they carry: a message
     * stored twice (a retry after the duplicate window) counts once.
     * @param connection the demo's connection
     * @param subject a routing subject
     * @param stored how many messages the stream holds on it (its stream info)
     * @return what they carry
     * @throws IOException when the leader did not answer within {@link #READ_TIMEOUT} (an
     * election, a server still down), refused a read, or held fewer than {@code stored}
     * messages: the report is read again
     */
    static Carried carried(Connection connection, String subject, long stored) throws IOException {
        EventCodec codec = new EventCodec();
        Set<String> ids = new HashSet<>();
        long read = 0;
        long events = 0;
        long sequence = 1;
        while (read < stored) {
            MessageInfo message = next(connection, subject, sequence);
            if (message == null) {
                throw new IOException("read " + read + " of the " + stored + " messages stored on " + subject
                        + " (the stream's leader holds no more)");
            }
            read++;
            sequence = message.getSeq() + 1;
            String id = message.getHeaders() == null ? null
                    : message.getHeaders().getFirst(NatsJetStreamConstants.MSG_ID_HDR);
            if (ids.add(id == null ? "seq:" + message.getSeq() : id)) {
                events += eventsIn(codec, message.getData());
            }
        }
        return new Carried(ids.size(), events);
    }

    /**
     * @return the first message on the subject from that sequence on, or {@code null}
     */
    private static MessageInfo next(Connection connection, String subject, long sequence) throws IOException {
        String api = NatsJetStreamConstants.DEFAULT_API_PREFIX
                + String.format(NatsJetStreamConstants.JSAPI_MSG_GET, VarpulisJetStream.ROUTING_STREAM);
        Message reply;
        try {
            reply = connection
                .requestWithTimeout(api, MessageGetRequest.nextForSubject(sequence, subject).serialize(), READ_TIMEOUT)
                .get(READ_TIMEOUT.toMillis() + 500, TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading " + subject, e);
        }
        catch (ExecutionException | TimeoutException | IllegalStateException e) {
            throw new IOException("the leader of " + VarpulisJetStream.ROUTING_STREAM + " did not answer a read of "
                    + subject + " within " + READ_TIMEOUT.toSeconds() + " s (" + e + ")", e);
        }
        if (reply.isStatusMessage()) {
            throw new IOException("cannot read " + subject + ": " + reply.getStatus().getMessageWithCode());
        }
        MessageInfo info = new MessageInfo(reply, VarpulisJetStream.ROUTING_STREAM, false);
        if (!info.hasError()) {
            return info;
        }
        if (info.getApiErrorCode() == JetStreamErrors.NO_MESSAGE_FOUND) {
            return null;
        }
        throw new IOException("cannot read " + subject + ": " + info.getError());
    }

    /**
     * @return the events a message carries: a batch's elements, else 1 (an undecodable
     * message too)
     */
    private static long eventsIn(EventCodec codec, byte[] data) {
        try {
            Event event = codec.decode(data);
            return EventBatch.isBatch(event) ? EventBatch.elements(event).size() : 1;
        }
        catch (RuntimeException e) {
            return 1;
        }
    }

}
