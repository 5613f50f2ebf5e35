package io.varpulis.jetstream;

import io.nats.client.api.StreamConfiguration;
import io.varpulis.nats.NatsProperties;

import java.util.List;

/**
 * The settings mapping of {@code varpulis.nats.jetstream.*} to stream declarations: the
 * three built-in streams and those a service declares are one model
 * ({@link NatsProperties.StreamSpec}), the built-in ones pre-filled with ADR-007's
 * values.
 */
public final class JetStreamSettings {

    private JetStreamSettings() {
    }

    /**
     * @param js the JetStream settings
     * @return {@code VARPULIS_ROUTING}: {@code varpulis.cluster.pipeline.>}, Limits,
     * max_age 1 h, max_bytes 1 GiB, discard Old, File, duplicate_window 2 min unless
     * configured otherwise
     */
    public static StreamDeclaration routing(NatsProperties.JetStream js) {
        return stream(VarpulisJetStream.ROUTING_STREAM, js.getRouting(), js.getReplicas());
    }

    /**
     * @param js the JetStream settings
     * @return {@code VARPULIS_HEARTBEAT}: {@code varpulis.cluster.heartbeat.>}, Limits,
     * max_age 5 min, max_msgs_per_subject 16, discard Old, File unless configured
     * otherwise
     */
    public static StreamDeclaration heartbeat(NatsProperties.JetStream js) {
        return stream(VarpulisJetStream.HEARTBEAT_STREAM, js.getHeartbeat(), js.getReplicas());
    }

    /**
     * @param js the JetStream settings
     * @return {@code VARPULIS_DLQ}: {@code varpulis.dlq.>}, Limits, max_msgs 100 000, no
     * max_age, discard Old, File unless configured otherwise
     */
    public static StreamDeclaration deadLetters(NatsProperties.JetStream js) {
        return stream(VarpulisJetStream.DLQ_STREAM, js.getDlq(), js.getReplicas());
    }

    /**
     * @param replicas the streams' replicas
     * @return the three built-in streams with ADR-007's values, as a tool outside a
     * Spring context provisions them
     */
    public static List<StreamDeclaration> builtIn(int replicas) {
        NatsProperties.JetStream js = new NatsProperties.JetStream();
        js.setReplicas(replicas);
        return List.of(routing(js), heartbeat(js), deadLetters(js));
    }

    /**
     * @param name the stream name
     * @param spec its settings
     * @param defaultReplicas replicas when the spec does not say
     * @return the declaration
     * @throws IllegalArgumentException when the spec has no subjects
     */
    public static StreamDeclaration stream(String name, NatsProperties.StreamSpec spec, int defaultReplicas) {
        if (spec.getSubjects() == null || spec.getSubjects().isEmpty()) {
            throw new IllegalArgumentException("stream " + name + " declares no subjects");
        }
        StreamConfiguration.Builder b = StreamConfiguration.builder()
            .name(name)
            .subjects(spec.getSubjects())
            .retentionPolicy(spec.getRetention())
            .discardPolicy(spec.getDiscard())
            .storageType(spec.getStorage())
            .replicas(spec.getReplicas() == null ? defaultReplicas : spec.getReplicas())
            .description(spec.getDescription());
        if (spec.getMaxAge() != null) {
            b.maxAge(spec.getMaxAge());
        }
        if (spec.getMaxBytes() != null) {
            b.maxBytes(spec.getMaxBytes().toBytes());
        }
        if (spec.getMaxMsgs() != null) {
            b.maxMessages(spec.getMaxMsgs());
        }
        if (spec.getMaxMsgsPerSubject() != null) {
            b.maxMessagesPerSubject(spec.getMaxMsgsPerSubject());
        }
        if (spec.getDuplicateWindow() != null) {
            b.duplicateWindow(spec.getDuplicateWindow());
        }
        return new StreamDeclaration(b.build());
    }

}
