package io.varpulis.demo;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.PublishOptions;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventBatch;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 41 (the slow-disk run with the slow-leader step-down on, which ended "read 288 of
 * the 334 messages stored ... (no message for 5 s)"): the demo's report counts what a
 * routing subject carries from the routing stream's leader, so a replica far behind (a
 * server whose fsync is slow, once it no longer leads the stream; here a server paused
 * since before the messages were stored) never holds the report back. The server places a
 * consumer, an ordered one included, on any replica of the stream.
 */
@BrokerTest
class SubjectReadsTest {

    private static final String SUBJECT = "varpulis.cluster.pipeline.reads.ingress.detect";

    private static final int MESSAGES = 40;

    private static final int EVENTS_EACH = 3;

    @RegisterExtension
    static final NatsClusterExtension cluster = NatsClusterExtension.ofThree();

    @Test
    void everyStoredMessageIsCounted_whileAReplicaHoldsNoneOfThem() throws Exception {
        int leader;
        try (Connection first = Nats.connect(cluster.url())) {
            first.jetStreamManagement()
                .addStream(StreamConfiguration.builder()
                    .name(VarpulisJetStream.ROUTING_STREAM)
                    .subjects("varpulis.cluster.pipeline.>")
                    .storageType(StorageType.File)
                    .replicas(3)
                    .build());
            leader = cluster.streamLeader(VarpulisJetStream.ROUTING_STREAM);
        }
        int behind = (leader + 1) % cluster.size();
        cluster.pause(behind);
        try (Connection connection = Nats.connect(cluster.url(leader))) {
            JetStreamManagement jsm = connection.jetStreamManagement();
            await("the two running servers answer for the stream").atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() -> jsm.getStreamInfo(VarpulisJetStream.ROUTING_STREAM) != null);
            JetStream js = connection.jetStream();
            EventCodec codec = new EventCodec();
            for (int i = 0; i < MESSAGES; i++) {
                PublishOptions id = PublishOptions.builder().messageId("batch-" + i).build();
                js.publish(SUBJECT, codec.encode(batch(i)), id);
                js.publish("varpulis.cluster.pipeline.reads.other", codec.encode(batch(i)));
            }
            // A retry within the duplicate window is not stored again.
            js.publish(SUBJECT, codec.encode(batch(0)), PublishOptions.builder().messageId("batch-0").build());

            for (int read = 0; read < 6; read++) {
                // Each read a consumer would place anew: one in three on the paused
                // replica.
                SubjectReads.Carried carried = SubjectReads.carried(connection, SUBJECT, MESSAGES);
                assertThat(carried.messages()).as("read %d", read).isEqualTo(MESSAGES);
                assertThat(carried.events()).as("read %d", read).isEqualTo((long) MESSAGES * EVENTS_EACH);
            }
        }
        finally {
            cluster.resume(behind);
        }
    }

    private static Event batch(int i) {
        List<Event> events = IntStream.range(0, EVENTS_EACH)
            .mapToObj(e -> Event.of("ssh.failure", Map.of("n", i * EVENTS_EACH + e)))
            .toList();
        return EventBatch.of("ssh.batch", events);
    }

}
