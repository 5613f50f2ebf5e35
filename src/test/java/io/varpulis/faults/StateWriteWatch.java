package io.varpulis.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

/**
 * Every state write as the wire shows it, from the product's own state code but not
 * through it: a core subscription on {@code $KV.>} receives each publish to a bucket (the
 * pipelines' writes, fences and the sink's claims, retries included) with its
 * {@code Nats-Msg-Id} and reply subject, and the answers sent to those reply subjects
 * (the PubAcks: stored, duplicate, or refused with an API error such as 10158 "duplicate
 * message id is in process" or 10071 "wrong last sequence") are received by subscribing
 * to each writer's inbox ({@code <first token of the reply>.>}: a node's inbox prefix is
 * {@code _INBOX_{role}_{id}}) once its first write is seen; the answers to a writer's
 * first writes may be missed meanwhile. A publish whose answer the harness never saw
 * timed out at the writer, or its answer came before the inbox subscription. The inbox
 * subscriptions also receive every pull delivery of that node, so the harness copes with
 * much of the stream's traffic once more; it keeps only small answers without headers.
 */
final class StateWriteWatch implements AutoCloseable {

    /**
     * A PubAck is {@code {"stream":"KV_...","seq":N[,"duplicate":true]}} or
     * {@code {"error":{...}}}, well under this.
     */
    private static final int MAX_ANSWER_BYTES = 600;

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The pipelines' state buckets ({@code JetStreamKeyValueState.bucketName}). */
    private static final String STATE_PREFIX = "varpulis_state_";

    /** One publish on {@code $KV.{bucket}.{key}}. */
    private record Write(String bucket, boolean fence, String messageId, String reply) {
    }

    private final Connection connection;

    private final Dispatcher dispatcher;

    private final List<Write> writes = new CopyOnWriteArrayList<>();

    private final Map<String, String> answers = new ConcurrentHashMap<>();

    private final Set<String> inboxes = ConcurrentHashMap.newKeySet();

    /**
     * @param connection the harness's connection, owned by the caller
     */
    StateWriteWatch(Connection connection) {
        this.connection = connection;
        this.dispatcher = connection.createDispatcher(this::received);
        dispatcher.setPendingLimits(0, 0); // no limit: a drop would make the figures low
        dispatcher.subscribe("$KV.>");
    }

    private void received(Message message) {
        String subject = message.getSubject();
        if (subject.startsWith("$KV.")) {
            String[] tokens = subject.split("\\.", 3);
            String messageId = message.hasHeaders() ? message.getHeaders().getFirst("Nats-Msg-Id") : null;
            String reply = message.getReplyTo();
            writes.add(new Write(tokens.length > 1 ? tokens[1] : "?", tokens.length > 2 && tokens[2].endsWith("fence"),
                    messageId, reply));
            if (reply != null && reply.indexOf('.') > 0 && inboxes.add(reply.substring(0, reply.indexOf('.')))) {
                dispatcher.subscribe(reply.substring(0, reply.indexOf('.')) + ".>");
            }
        }
        else if (!message.hasHeaders() && message.getData() != null && message.getData().length < MAX_ANSWER_BYTES
                && message.getData().length > 0 && message.getData()[0] == '{') {
            answers.put(subject, outcome(message.getData()));
        }
    }

    /**
     * @return {@code stored}, {@code duplicate}, {@code 10071} ..., or {@code other}
     */
    static String outcome(byte[] answer) {
        try {
            JsonNode ack = JSON.readTree(answer);
            if (ack.has("error")) {
                return String.valueOf(ack.path("error").path("err_code").asInt(ack.path("error").path("code").asInt()));
            }
            if (ack.has("seq")) {
                return ack.path("duplicate").asBoolean() ? "duplicate" : "stored";
            }
            return "other";
        }
        catch (IOException notJson) {
            return "other";
        }
    }

    /**
     * What the state writes came to.
     *
     * @param byBucket pipeline state bucket (short: the pipeline name) to its publishes,
     * distinct message ids, fence publishes and answers by outcome ({@code stored},
     * {@code duplicate}, an API error code such as 10158 or 10071, {@code none seen})
     * @param publishes publishes to the pipelines' state buckets
     * ({@code varpulis_state_*}) in all
     * @param others publishes to the cluster's other buckets (leader lease, worker ids,
     * groups), by bucket
     * @param dropped messages the harness's subscription dropped (slow consumer): the
     * figures are then low
     */
    record Result(Map<String, String> byBucket, long publishes, Map<String, Long> others, long dropped) {

        String note() {
            return "state-write publishes " + publishes
                    + (dropped > 0 ? " (the harness dropped " + dropped + " messages: low)" : "") + ": "
                    + byBucket.entrySet()
                        .stream()
                        .map(e -> e.getKey() + " " + e.getValue())
                        .collect(Collectors.joining("; "))
                    + "; other buckets' publishes " + others;
        }
    }

    /**
     * @return the figures so far, by bucket
     */
    Result result() {
        Map<String, List<Write>> by = writes.stream()
            .filter(w -> w.bucket().startsWith(STATE_PREFIX))
            .collect(Collectors.groupingBy(w -> shortName(w.bucket()), TreeMap::new, Collectors.toList()));
        Map<String, String> byBucket = new LinkedHashMap<>();
        by.forEach((bucket, list) -> {
            Map<String, Long> outcomes = list.stream()
                .collect(Collectors.groupingBy(
                        w -> w.reply() == null ? "no reply subject" : answers.getOrDefault(w.reply(), "none seen"),
                        TreeMap::new, Collectors.counting()));
            Set<String> ids = list.stream().map(Write::messageId).filter(id -> id != null).collect(Collectors.toSet());
            // A state sends a write again under {writer}:{n}.{copy} (issue 41): one
            // write, every copy.
            long mostSends = list.stream()
                .map(Write::messageId)
                .filter(id -> id != null)
                .collect(Collectors.groupingBy(id -> id.replaceFirst("^([^:]+:\\d+)\\.\\d+$", "$1"),
                        Collectors.counting()))
                .values()
                .stream()
                .mapToLong(Long::longValue)
                .max()
                .orElse(0);
            byBucket.put(bucket,
                    list.size() + " publishes, " + ids.size() + " message ids, one write sent " + mostSends
                            + " times at most (" + list.stream().filter(w -> w.messageId() == null).count()
                            + " publishes without one), " + list.stream().filter(Write::fence).count()
                            + " on the fence; answers " + outcomes);
        });
        Map<String, Long> others = writes.stream()
            .filter(w -> !w.bucket().startsWith(STATE_PREFIX))
            .collect(Collectors.groupingBy(Write::bucket, TreeMap::new, Collectors.counting()));
        return new Result(byBucket, by.values().stream().mapToLong(List::size).sum(), others,
                dispatcher.getDroppedCount());
    }

    /**
     * {@code varpulis_state_ssh-bruteforce_detect_1a2b3c4d} -> {@code detect}; other
     * buckets as they are.
     */
    private static String shortName(String bucket) {
        String prefix = STATE_PREFIX + "ssh-bruteforce_";
        if (bucket.startsWith(prefix)) {
            String rest = bucket.substring(prefix.length());
            int hash = rest.lastIndexOf('_');
            return hash > 0 ? rest.substring(0, hash) : rest;
        }
        return bucket;
    }

    @Override
    public void close() {
        connection.closeDispatcher(dispatcher);
    }

}
