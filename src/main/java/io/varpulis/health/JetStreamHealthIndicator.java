package io.varpulis.health;

import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.StreamInfo;
import io.nats.client.api.StreamState;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.StreamDrift;
import io.varpulis.jetstream.VarpulisJetStream;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Health component {@code jetstream}: UP when every declared stream and every durable consumer in use exists.
 * Details: {@code streams} (per stream:
 * {@code present}, {@code messages}, {@code bytes}, and {@code drift} when its settings differ from the declaration),
 * {@code consumers} (per durable: {@code pending}, {@code ackPending}, {@code redelivered}), and {@code dlqDepth}
 * (messages parked in {@code VARPULIS_DLQ}).
 */
public class JetStreamHealthIndicator extends AbstractHealthIndicator {

    private final JetStreamAdmin admin;

    /**
     * @param admin knows the declared streams and consumers and asks the server about them
     */
    public JetStreamHealthIndicator(JetStreamAdmin admin) {
        super("JetStream health check failed");
        this.admin = admin;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        Map<String, Object> streams = new LinkedHashMap<>();
        Map<String, StreamDrift> drift = admin.drift();
        boolean allPresent = true;
        for (String name : admin.declaredStreams().keySet()) {
            Optional<StreamInfo> info = admin.streamInfo(name);
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("present", info.isPresent());
            info.map(StreamInfo::getStreamState).ifPresent(state -> {
                details.put("messages", state.getMsgCount());
                details.put("bytes", state.getByteCount());
            });
            if (drift.containsKey(name)) {
                details.put("drift", drift.get(name).describe());
            }
            if (name.equals(VarpulisJetStream.DLQ_STREAM)) {
                builder.withDetail("dlqDepth", info.map(StreamInfo::getStreamState).map(StreamState::getMsgCount)
                        .orElse(0L));
            }
            allPresent &= info.isPresent();
            streams.put(name, details);
        }
        Map<String, Object> consumers = new LinkedHashMap<>();
        boolean consumersPresent = true;
        for (ConsumerDeclaration declared : admin.declaredConsumers()) {
            Optional<ConsumerInfo> info = admin.consumerInfo(declared.stream(), declared.durable());
            consumersPresent &= info.isPresent();
            consumers.put(declared.durable(), info.<Object>map(c -> Map.of(
                    "pending", c.getNumPending(),
                    "ackPending", c.getNumAckPending(),
                    "redelivered", c.getRedelivered())).orElse(Map.of("present", false)));
        }
        if (!allPresent) {
            builder.down().withDetail("reason", "a declared stream is missing; restart a node to recreate it");
        } else if (!consumersPresent) {
            builder.down().withDetail("reason", "a durable consumer in use is missing on the server (deleted by "
                    + "hand?); its events are not consumed until the pipeline is deployed again");
        } else {
            builder.up();
        }
        builder.withDetail("streams", streams).withDetail("consumers", consumers);
    }
}
