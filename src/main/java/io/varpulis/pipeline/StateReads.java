package io.varpulis.pipeline;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.api.KeyValueOperation;
import io.nats.client.api.MessageGetRequest;
import io.nats.client.api.MessageInfo;
import io.nats.client.impl.Headers;
import io.nats.client.support.NatsJetStreamConstants;
import io.nats.client.support.NatsKeyValueUtil;
import io.varpulis.jetstream.JetStreamErrors;
import io.varpulis.pipeline.KeyValueState.StateException;
import io.varpulis.pipeline.KeyValueState.StateLostException;
import io.varpulis.pipeline.KeyValueState.StateUnavailableException;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.PublishException;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How {@link JetStreamKeyValueState} reads its bucket: from the stream leader
 * ({@code $JS.API.STREAM.MSG.GET}), never by a direct get that a replica may answer from
 * behind, and how it reads and writes its fence value ({@code {"epoch": N, "writer":
 * "...", "opened_at": "..."}}). Public for the control plane's buckets, which read
 * through their stream leader the same way ({@code GroupStore}'s re-read).
 */
public final class StateReads {

    private static final ObjectMapper JSON = new ObjectMapper();

    private StateReads() {
    }

    /**
     * What the bucket's stream leader holds.
     *
     * @param lastSequence its last sequence
     * @param lastMessageId the {@code Nats-Msg-Id} of the message at that sequence, or
     * {@code null} when it has none
     * @param gone whether no message is at that sequence any more (a later write of its
     * key, or its age, removed it)
     * @param fenceWriter when gone: the writer the fence names, else {@code null}
     */
    record Held(long lastSequence, String lastMessageId, boolean gone, String fenceWriter) {
    }

    /**
     * Reads from the stream leader ({@code STREAM.MSG.GET}), never from a replica.
     * @param connection the connection
     * @param stream the bucket's stream, {@code KV_{bucket}}
     * @param bucket the bucket, for messages
     * @param timeout how long the leader may take to answer
     * @param request what to read
     * @param what what the read is for, for messages ({@code read window.x})
     * @return the message, or empty when there is none
     * @throws StateUnavailableException when the leader did not answer
     * @throws StateLostException when the bucket is gone
     * @throws StateException when the server refused the read
     */
    public static Optional<MessageInfo> leaderRead(Connection connection, String stream, String bucket,
            Duration timeout, MessageGetRequest request, String what) {
        Message reply;
        try {
            reply = connection
                .requestWithTimeout(
                        NatsJetStreamConstants.DEFAULT_API_PREFIX
                                + String.format(NatsJetStreamConstants.JSAPI_MSG_GET, stream),
                        request.serialize(), timeout)
                .get(timeout.toMillis() + 500, TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StateUnavailableException("interrupted: " + what + " from bucket " + bucket, e);
        }
        catch (ExecutionException | TimeoutException | IllegalStateException e) {
            throw new StateUnavailableException(
                    "cannot " + what + " from bucket " + bucket + ": its stream leader " + "did not answer (" + e + ")",
                    e);
        }
        if (reply.isStatusMessage()) {
            throw new StateUnavailableException(
                    "cannot " + what + " from bucket " + bucket + ": " + reply.getStatus().getMessageWithCode(), null);
        }
        MessageInfo info = new MessageInfo(reply, stream, false);
        if (!info.hasError()) {
            return Optional.of(info);
        }
        int code = info.getApiErrorCode();
        if (code == JetStreamErrors.NO_MESSAGE_FOUND) {
            return Optional.empty();
        }
        if (code == JetStreamErrors.STREAM_NOT_FOUND) {
            throw new StateLostException("state bucket " + bucket + " was deleted", null);
        }
        if (PublishException.isTransientApiError(code)) {
            throw new StateUnavailableException("cannot " + what + " from bucket " + bucket + ": " + info.getError(),
                    null);
        }
        throw new StateException("cannot " + what + " from bucket " + bucket + ": " + info.getError(), null);
    }

    /**
     * What a bucket's stream leader holds last: its last sequence (stream info, answered
     * by the leader) and the message id at it, or, when that message is gone, the writer
     * its fence names.
     * @param connection the connection
     * @param jsm its management API, with {@code timeout} as its request timeout
     * @param bucket the bucket
     * @param timeout how long the leader may take to answer each read
     * @return what the leader holds
     * @throws StateUnavailableException when the leader did not answer
     * @throws StateLostException when the bucket is gone
     * @throws StateException when the server refused a read
     */
    static Held held(Connection connection, JetStreamManagement jsm, String bucket, Duration timeout) {
        String stream = "KV_" + bucket;
        long last;
        try {
            last = jsm.getStreamInfo(stream).getStreamState().getLastSequence();
        }
        catch (IOException | IllegalStateException e) {
            throw new StateUnavailableException("cannot read the last sequence of bucket " + bucket + ": " + e, e);
        }
        catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == JetStreamErrors.STREAM_NOT_FOUND) {
                throw new StateLostException("state bucket " + bucket + " was deleted", e);
            }
            if (PublishException.isTransientApiError(e.getApiErrorCode())) {
                throw new StateUnavailableException("cannot read the last sequence of bucket " + bucket + ": " + e, e);
            }
            throw new StateException("cannot read the last sequence of bucket " + bucket + ": " + e.getMessage(), e);
        }
        Optional<MessageInfo> message = last == 0 ? Optional.empty() : leaderRead(connection, stream, bucket, timeout,
                MessageGetRequest.forSequence(last), "read sequence " + last);
        if (message.isPresent()) {
            Headers headers = message.get().getHeaders();
            return new Held(last, headers == null ? null : headers.getFirst(Delivery.MSG_ID_HEADER), false, null);
        }
        String holder = StateFence.holder(connection, bucket, timeout).map(m -> fenceField(m, "writer")).orElse("");
        return new Held(last, null, true, holder);
    }

    /**
     * @param message a message of a bucket
     * @return whether it is a value ({@code KV-Operation} PUT or none), not a delete or
     * purge marker
     */
    public static boolean isValue(MessageInfo message) {
        Headers headers = message.getHeaders();
        KeyValueOperation operation = headers == null ? KeyValueOperation.PUT : NatsKeyValueUtil.getOperation(headers);
        return operation == KeyValueOperation.PUT;
    }

    /**
     * @param fence the fence message
     * @return the fence's placement epoch, -1 when it has none
     */
    static long epochOf(MessageInfo fence) {
        String epoch = fenceField(fence, "epoch");
        return epoch.matches("\\d+") ? Long.parseLong(epoch) : -1;
    }

    /**
     * @param fence the fence message
     * @param name a field of its value
     * @return the field as text, empty when the value is not JSON or lacks it
     */
    static String fenceField(MessageInfo fence, String name) {
        try {
            return JSON.readTree(fence.getData()).path(name).asText("");
        }
        catch (IOException e) {
            return "";
        }
    }

    /**
     * @param epoch the placement epoch opening the bucket
     * @param writer the writer's identity
     * @param openedAt when
     * @return the fence value, {@code {"epoch": N, "writer": "...", "opened_at": "..."}}
     */
    static byte[] fenceValue(long epoch, String writer, Instant openedAt) {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("epoch", epoch);
        value.put("writer", writer);
        value.put("opened_at", openedAt.toString());
        try {
            return JSON.writeValueAsBytes(value);
        }
        catch (IOException e) {
            throw new IllegalStateException("cannot encode the fence", e);
        }
    }

}
