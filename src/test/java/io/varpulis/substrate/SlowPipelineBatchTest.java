package io.varpulis.substrate;

import io.varpulis.delivery.OutputEmitter;
import io.varpulis.nats.NatsProperties;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.OutboundMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A pipeline too slow for its pull batch (the last of a batch would wait past half of ack_wait in the client) is
 * told to the operator with the batch size that fits, once; a fast one is not.
 */
@BrokerTest
@ExtendWith(OutputCaptureExtension.class)
class SlowPipelineBatchTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    @Test
    void aPipelineSlowerThanHalfOfAckWaitPerBatch_isWarnedAboutWithTheBatchSizeThatFits(CapturedOutput output)
            throws Exception {
        NatsProperties properties = new NatsProperties();
        properties.getJetstream().getConsumer().setAckWait(Duration.ofSeconds(4));
        properties.getJetstream().getConsumer().setBatchSize(64);
        RouteEdge edge = new RouteEdge("slow", "_external", "detect");
        Set<String> applied = ConcurrentHashMap.newKeySet();
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM, properties);
             Consumption ignored = worker.ingress(edge, (event, context) -> {
                 Thread.sleep(50); // 64 x 50 ms = 3.2 s a batch, over half of the 4 s ack_wait
                 applied.add((String) event.fields().get("n"));
                 return List.of();
             }, OutputEmitter.NONE).start(worker.transport, worker.properties.getJetstream().getConsumer())) {
            // Timed: every 8th; checked every 4 timed (32 messages, 4 x 50 ms > 4 s / 64); warned on the 2nd check.
            publish(worker, edge, 100);
            await().atMost(Duration.ofSeconds(30)).until(() -> applied.size() == 100);
            assertThat(output.getOut()).contains("consumer route_detect__", "its handler takes",
                    "pulled batch of 64", "more than half of the 4000 ms ack_wait", "or raise ack-wait")
                    .containsPattern("Set varpulis.nats.jetstream.consumer.batch-size to [1-4]?[0-9] or less");
            assertThat(output.getOut().split("its handler takes", -1)).as("warned once").hasSize(2);
        }
    }

    @Test
    void aFastPipelineIsNotWarnedAbout(CapturedOutput output) throws Exception {
        RouteEdge edge = new RouteEdge("fast", "_external", "detect");
        Set<String> applied = ConcurrentHashMap.newKeySet();
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM);
             Consumption ignored = worker.ingress(edge, (event, context) -> {
                 applied.add((String) event.fields().get("n"));
                 return List.of();
             }, OutputEmitter.NONE).start(worker.transport, worker.properties.getJetstream().getConsumer())) {
            publish(worker, edge, 600);
            await().atMost(Duration.ofSeconds(20)).until(() -> applied.size() == 600);
            assertThat(output.getOut()).doesNotContain("its handler takes");
        }
    }

    private static void publish(SubstrateFixture worker, RouteEdge edge, int count) {
        CompletableFuture<?>[] sent = new CompletableFuture<?>[count];
        for (int i = 0; i < count; i++) {
            sent[i] = worker.transport.publish(new OutboundMessage(edge.subject(),
                    worker.codec.encode(Event.of("SshAuthFailure", Map.of("n", Integer.toString(i)))),
                    edge.group() + "-" + i));
        }
        CompletableFuture.allOf(sent).join();
    }
}
