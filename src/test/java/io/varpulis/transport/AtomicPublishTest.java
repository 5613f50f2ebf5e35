package io.varpulis.transport;

import io.nats.client.JetStreamManagement;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.support.NatsJetStreamConstants;
import io.varpulis.nats.Substrate;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsClusterExtension;
import io.varpulis.test.SubstrateFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ClusterTransport#publishAtomically} on three clustered servers and an R3 stream
 * (what a pipeline's state writes from nats-server 2.14: an apply stored whole or not at
 * all): a batch lands at consecutive sequences with its message ids, one receipt for it;
 * a batch whose expectation is false, or sent to a stream without {@code allow_atomic},
 * stores nothing.
 */
@BrokerTest
class AtomicPublishTest {

    @RegisterExtension
    static final NatsClusterExtension cluster = NatsClusterExtension.ofThree().from("2.12.0", "atomic batch publish");

    private static SubstrateFixture fixture;

    private static JetStreamManagement jsm;

    @BeforeAll
    static void streams() throws Exception {
        fixture = SubstrateFixture.connect(cluster.url(), Substrate.JETSTREAM);
        jsm = fixture.jsm();
        for (String name : List.of("ATOMIC", "PLAIN")) {
            jsm.addStream(StreamConfiguration.builder()
                .name(name)
                .subjects(name.toLowerCase() + ".>")
                .replicas(3)
                .allowAtomicPublish(name.equals("ATOMIC"))
                .build());
        }
    }

    @AfterAll
    static void close() throws Exception {
        fixture.close();
    }

    @Test
    void aBatchIsStoredWholeAtConsecutiveSequences_withItsMessageIds_orNotAtAll() throws Exception {
        long before = lastSequence("ATOMIC");
        PublishReceipt stored = fixture.transport
            .publishAtomically(List.of(message("atomic.a", "a-1", before), message("atomic.b", "b-1", null),
                    message("atomic.c", "c-1", null)))
            .get(10, TimeUnit.SECONDS);

        assertThat(stored.sequence()).isEqualTo(before + 3);
        assertThat(jsm.getMessage("ATOMIC", before + 2).getHeaders().getFirst(NatsJetStreamConstants.MSG_ID_HDR))
            .isEqualTo("b-1");
        assertThat(new String(jsm.getMessage("ATOMIC", before + 3).getData(), StandardCharsets.UTF_8)).isEqualTo("c-1");

        assertThatThrownBy(() -> fixture.transport
            .publishAtomically(List.of(message("atomic.d", "d-1", before), message("atomic.e", "e-1", null)))
            .get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .cause()
            .isInstanceOfSatisfying(PublishException.class,
                    refused -> assertThat(refused.apiErrorCode()).as("wrong last sequence").isEqualTo(10071));
        assertThat(lastSequence("ATOMIC")).as("none of the refused batch stored").isEqualTo(before + 3);
    }

    @Test
    void aStreamWithoutAllowAtomicRefusesTheBatchAndStoresNone() throws Exception {
        long before = lastSequence("PLAIN");

        assertThatThrownBy(() -> fixture.transport
            .publishAtomically(List.of(message("plain.a", "pa-1", null), message("plain.b", "pb-1", null)))
            .get(10, TimeUnit.SECONDS)).cause()
            .isInstanceOfSatisfying(PublishException.class,
                    refused -> assertThat(refused.apiErrorCode()).as("atomic publish disabled").isEqualTo(10174));
        assertThat(lastSequence("PLAIN")).isEqualTo(before);
    }

    @Test
    void onlyTheFirstMessageMayExpectASequence_andNoneAMessageId() {
        assertThatThrownBy(() -> fixture.transport
            .publishAtomically(List.of(message("atomic.x", "x-1", null), message("atomic.y", "y-1", 4L))))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("only the first message may expect a last sequence");
        assertThatThrownBy(() -> fixture.transport
            .publishAtomically(List.of(new OutboundMessage("atomic.x", new byte[0], null, Map.of(), null, "x-0"),
                    message("atomic.y", "y-1", null))))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("none a last message id");
    }

    private static OutboundMessage message(String subject, String id, Long expectedLastSequence) {
        return new OutboundMessage(subject, id.getBytes(StandardCharsets.UTF_8), id, Map.of(), expectedLastSequence,
                null);
    }

    private static long lastSequence(String stream) throws Exception {
        return jsm.getStreamInfo(stream).getStreamState().getLastSequence();
    }

}
