package io.varpulis.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.MessageInfo;
import io.varpulis.dlq.DeadLetterHeaders;
import io.varpulis.dlq.DeathEnvelope;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.transport.GivenUpMessage;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * The messages of the routing stream the server gave up on during the run (its
 * max-deliveries advisories, read from before the first publish), and whether each is
 * parked: the main job's drain waits for every stored input to be acked or parked on the
 * server, and its report names any the server gave up without a park (issue 30: a
 * delivery the server gave up on is neither pending nor unacknowledged, and a drain that
 * counted those left it behind).
 */
final class GivenUpWatch implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Connection connection;

    private final Dispatcher dispatcher;

    private final Set<Long> givenUp = new ConcurrentSkipListSet<>();

    private final Set<Long> parked = new TreeSet<>();

    private final long dlqFrom;

    private long dlqReadTo;

    /**
     * Starts listening; call before the first publish.
     * @param connection the demo's connection
     * @throws IOException when the DLQ's position cannot be read
     */
    GivenUpWatch(Connection connection) throws IOException {
        this.connection = connection;
        try {
            this.dlqFrom = connection.jetStreamManagement()
                .getStreamInfo(VarpulisJetStream.DLQ_STREAM)
                .getStreamState()
                .getLastSequence() + 1;
        }
        catch (JetStreamApiException e) {
            throw new IOException("cannot read the DLQ's last sequence: " + e.getMessage(), e);
        }
        this.dlqReadTo = dlqFrom - 1;
        this.dispatcher = connection.createDispatcher(advisory -> {
            try {
                givenUp.add(JSON.readTree(advisory.getData()).path("stream_seq").asLong());
            }
            catch (IOException e) {
                givenUp.add(-1L);
            }
        });
        dispatcher.subscribe(GivenUpMessage.ADVISORY_ROOT + "." + VarpulisJetStream.ROUTING_STREAM + ".*");
    }

    /**
     * @return the routing stream's sequences the server gave up on so far
     */
    List<Long> givenUp() {
        return List.copyOf(givenUp);
    }

    /**
     * Reads the DLQ's messages parked since the run started (each once) and says which
     * given-up messages none of them carries.
     * @param jsm the connection's management API
     * @return the given-up sequences not parked (yet)
     * @throws IOException when the DLQ cannot be read now
     */
    synchronized List<Long> unparked(JetStreamManagement jsm) throws IOException {
        if (givenUp.isEmpty()) {
            return List.of();
        }
        try {
            long last = jsm.getStreamInfo(VarpulisJetStream.DLQ_STREAM).getStreamState().getLastSequence();
            for (long seq = Math.max(dlqReadTo + 1, dlqFrom); seq <= last; seq++) {
                readParked(jsm, seq);
                dlqReadTo = seq;
            }
        }
        catch (JetStreamApiException e) {
            throw new IOException("cannot read the DLQ: " + e.getMessage(), e);
        }
        return givenUp.stream().filter(seq -> !parked.contains(seq)).toList();
    }

    private void readParked(JetStreamManagement jsm, long seq) throws IOException, JetStreamApiException {
        MessageInfo message;
        try {
            message = jsm.getMessage(VarpulisJetStream.DLQ_STREAM, seq);
        }
        catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == 10037) {
                return; // deleted (replayed or purged): not this run's concern
            }
            throw e;
        }
        if (DeadLetterHeaders.isRawForm(message.getHeaders())) {
            DeathEnvelope envelope = DeadLetterHeaders.envelope(message.getHeaders(), message.getData());
            if (VarpulisJetStream.ROUTING_STREAM.equals(envelope.stream()) && envelope.streamSequence() != null
                    && envelope.parkedElement() == null) {
                parked.add(envelope.streamSequence());
            }
            return;
        }
        JsonNode envelope = JSON.readTree(message.getData());
        if (VarpulisJetStream.ROUTING_STREAM.equals(envelope.path("stream").asText())
                && envelope.path("parked_element").isMissingNode()) {
            parked.add(envelope.path("stream_sequence").asLong());
        }
    }

    @Override
    public void close() {
        if (dispatcher.isActive() && connection.getStatus() != Connection.Status.CLOSED) {
            connection.closeDispatcher(dispatcher);
        }
    }

}
