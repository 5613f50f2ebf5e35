package io.varpulis.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StreamState;
import io.nats.client.impl.Headers;
import io.varpulis.jetstream.VarpulisJetStream;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

/**
 * The server's {@code $JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.>} advisories, received
 * on the harness's own connection from before the job starts until after its report, and
 * which of them have their message parked in {@code VARPULIS_DLQ} (SPEC section 9:
 * nothing leaves silently). A parked event is matched by the stream and stream sequence
 * its death envelope names: the JSON envelope's {@code stream} and
 * {@code stream_sequence}, or the raw form's {@code Varpulis-Dlq-Stream} and
 * {@code Varpulis-Dlq-Stream-Sequence} headers ({@code DeathEnvelope},
 * {@code DeadLetterHeaders}).
 */
final class MaxDeliveriesWatch implements AutoCloseable {

    static final String ADVISORIES = "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.>";

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * At most this many DLQ messages are read to match (the DLQ's own limit is 100 000).
     */
    private static final int MAX_PARKED_READ = 100_000;

    /** One advisory: {@code {"stream","consumer","stream_seq","deliveries"}}. */
    record Advisory(String stream, String consumer, long streamSequence, long deliveries, long nanos) {

        String key() {
            return stream + ":" + streamSequence;
        }
    }

    /**
     * What the advisories and the DLQ say.
     *
     * @param advisories every advisory, in arrival order
     * @param parked stream:sequence of every parked event the DLQ held at the end
     * @param dlqRead DLQ messages read
     */
    record Result(List<Advisory> advisories, Set<String> parked, long dlqRead) {

        long matched() {
            return advisories.stream().filter(a -> parked.contains(a.key())).count();
        }

        /**
         * @return durable: advisories (of them with a parked event) [stream sequences],
         * for the notes
         */
        String byDurable() {
            Map<String, List<Advisory>> by = advisories.stream()
                .collect(Collectors.groupingBy(Advisory::consumer, TreeMap::new, Collectors.toList()));
            return by.entrySet()
                .stream()
                .map(e -> e.getKey() + " " + e.getValue().size() + " ("
                        + e.getValue().stream().filter(a -> parked.contains(a.key())).count() + " parked) seq "
                        + e.getValue()
                            .stream()
                            .map(a -> a.streamSequence() + (parked.contains(a.key()) ? "" : "!"))
                            .limit(20)
                            .collect(Collectors.joining(","))
                        + (e.getValue().size() > 20 ? ",..." : ""))
                .collect(Collectors.joining("; "));
        }

        String note() {
            return "max-deliveries advisories " + advisories.size() + ", " + matched() + " with a parked event in "
                    + VarpulisJetStream.DLQ_STREAM + " (" + dlqRead + " parked in all)"
                    + (advisories.isEmpty() ? "" : ": " + byDurable() + " (! = no parked event)");
        }
    }

    private final Connection connection;

    private final Dispatcher dispatcher;

    private final List<Advisory> seen = new CopyOnWriteArrayList<>();

    private final long started = System.nanoTime();

    /**
     * @param connection the harness's connection, owned by the caller
     */
    MaxDeliveriesWatch(Connection connection) {
        this.connection = connection;
        this.dispatcher = connection.createDispatcher(message -> {
            try {
                JsonNode advisory = JSON.readTree(message.getData());
                seen.add(new Advisory(advisory.path("stream").asText(), advisory.path("consumer").asText(),
                        advisory.path("stream_seq").asLong(), advisory.path("deliveries").asLong(),
                        System.nanoTime() - started));
                System.out.printf("faults: max-deliveries advisory %s%n", new String(message.getData()));
            }
            catch (IOException notJson) {
                seen.add(new Advisory("?", message.getSubject(), -1, -1, System.nanoTime() - started));
            }
        });
        dispatcher.subscribe(ADVISORIES);
    }

    /**
     * @param reader a connection to read the DLQ through (the majority's view once the
     * job reported)
     * @return the advisories seen so far and the DLQ's parked events
     */
    Result result(Connection reader) throws IOException, JetStreamApiException {
        Parked dlq = parked(reader.jetStreamManagement());
        return new Result(new ArrayList<>(seen), dlq.parked(), dlq.read());
    }

    private record Parked(Set<String> parked, long read) {
    }

    /** Reads every DLQ message by sequence, from the stream leader. */
    private static Parked parked(JetStreamManagement jsm) throws IOException, JetStreamApiException {
        Set<String> parked = new HashSet<>();
        StreamState state = jsm.getStreamInfo(VarpulisJetStream.DLQ_STREAM).getStreamState();
        long read = 0;
        for (long seq = state.getFirstSequence(); seq <= state.getLastSequence() && read < MAX_PARKED_READ
                && state.getMsgCount() > 0; seq++) {
            MessageInfo message;
            try {
                message = jsm.getMessage(VarpulisJetStream.DLQ_STREAM, seq);
            }
            catch (JetStreamApiException gone) {
                continue;
            }
            read++;
            String key = parkedKey(message.getHeaders(), message.getData());
            if (key != null) {
                parked.add(key);
            }
        }
        return new Parked(parked, read);
    }

    /**
     * @param headers a DLQ message's headers, or {@code null}
     * @param data its body
     * @return {@code stream:sequence} of the event it parks, or {@code null} when it
     * names none
     */
    static String parkedKey(Headers headers, byte[] data) {
        if (headers != null && headers.getFirst("Varpulis-Dlq-Stream-Sequence") != null) {
            return headers.getFirst("Varpulis-Dlq-Stream") + ":" + headers.getFirst("Varpulis-Dlq-Stream-Sequence");
        }
        try {
            JsonNode envelope = JSON.readTree(data);
            return envelope.hasNonNull("stream_sequence")
                    ? envelope.path("stream").asText() + ":" + envelope.path("stream_sequence").asLong() : null;
        }
        catch (IOException notJson) {
            return null;
        }
    }

    @Override
    public void close() {
        connection.closeDispatcher(dispatcher);
    }

}
