package io.varpulis.substrate;

import io.nats.client.api.MessageInfo;
import io.varpulis.delivery.PipelineHost;
import io.varpulis.delivery.RouteEmitter;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.test.NatsTestProperties;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventProcessor;
import io.varpulis.pipeline.JetStreamKeyValueState;
import io.varpulis.pipeline.KeyValueState;
import io.varpulis.pipeline.KeyValueStateFactory;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.test.TestThreads;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishReceipt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * SPEC section 9, fencing every effect and output identity (issue 25, items 1 and 2): a
 * superseded owner publishes no output once a later placement opened the pipeline's
 * state, because the server refuses its state write and the outputs of an apply leave
 * only after its state writes are stored; and an output's {@code Nats-Msg-Id} follows
 * what the output is, so a re-apply that emits another event in the same position is
 * stored, not dropped as a duplicate.
 */
@BrokerTest
class EffectFencingTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void aSupersededOwnerPublishesNoOutput_itsStateWriteIsRefusedByTheServerBeforeAnyOutputLeaves() throws Exception {
        NatsTestProperties properties = new NatsTestProperties();
        properties.consumer().setAckWait(Duration.ofSeconds(2));
        properties.consumer().setNakDelay(SubstrateFixture.TEST_NAK_DELAY);
        int events = 200;
        try (SubstrateFixture zombieWorker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM, properties);
                SubstrateFixture ownerWorker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM, properties)) {
            PipelineGroupSpec group = new PipelineGroupSpec("superseded", List.of(pipeline("detect"), pipeline("sink")),
                    List.of(new PipelineGroupSpec.RouteSpec("_external", "detect", List.of("*")),
                            new PipelineGroupSpec.RouteSpec("detect", "sink", List.of("*"))))
                .validate();
            PipelineHost zombie = zombieWorker.host(countingAndEmitting("zombie"), states(zombieWorker));
            PipelineHost owner = ownerWorker.host(countingAndEmitting("owner"), states(ownerWorker));
            zombie.deploy(group, "detect", 1);
            // A later placement (the coordinator thought the zombie dead); both now pull
            // from the same durable.
            owner.deploy(group, "detect", 2);
            RouteEdge input = new RouteEdge("superseded", "_external", "detect");
            for (int i = 0; i < events; i++) {
                ownerWorker.transport
                    .publish(new OutboundMessage(input.subject(),
                            ownerWorker.codec.encode(Event.of("Tick", Map.of("n", i))), "superseded-" + i))
                    .get(5, TimeUnit.SECONDS);
            }

            await().atMost(WAIT).until(() -> {
                var info = ownerWorker.jsm()
                    .getConsumerInfo(VarpulisJetStream.ROUTING_STREAM,
                            DurableNames.routeConsumer("detect", input.subject()));
                return info.getNumPending() == 0 && info.getNumAckPending() == 0;
            });
            List<Map<String, Object>> outputs = stored(ownerWorker,
                    new RouteEdge("superseded", "detect", "sink").subject());
            assertThat(zombie.status()).as("the zombie stopped its pipeline").isEmpty();
            assertThat(zombieWorker.metrics.count("varpulis.state.fenced", "pipeline", "detect")).isEqualTo(1);
            assertThat(outputs)
                .as("every output is the owner's; the zombie's refused state writes kept its " + "outputs from leaving")
                .allSatisfy(o -> assertThat(o.get("by")).isEqualTo("owner"));
            assertThat(outputs).extracting(o -> o.get("n"))
                .as("one output per event")
                .doesNotHaveDuplicates()
                .hasSize(events);
            owner.close();
            zombie.close();
        }
    }

    @Test
    void anOutputsMessageIdFollowsItsKeyOrItsBytes_neverItsPositionAmongTheOutputs() throws Exception {
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            PipelineGroupSpec group = new PipelineGroupSpec("identity", List.of(pipeline("detect"), pipeline("sink")),
                    List.of(new PipelineGroupSpec.RouteSpec("_external", "detect", List.of("*")),
                            new PipelineGroupSpec.RouteSpec("detect", "sink", List.of("*"))))
                .validate();
            RouteEmitter emitter = RouteEmitter.of(group, group.outputRoutes("detect"), worker.transport, worker.codec,
                    worker.metrics);
            Event first = alert("10.0.0.1");
            Event other = alert("10.0.0.2");

            emitter.emit(List.of(first), List.of("alert:10.0.0.1"), "input-1").get(5, TimeUnit.SECONDS);
            // The same input applied again under other state emits another alert at the
            // same position: stored.
            emitter.emit(List.of(other), List.of("alert:10.0.0.2"), "input-1").get(5, TimeUnit.SECONDS);
            // The same alert again from the same input: a duplicate.
            emitter.emit(List.of(first), List.of("alert:10.0.0.1"), "input-1").get(5, TimeUnit.SECONDS);
            // Without keys: the bytes decide, and two equal outputs of one input are both
            // kept.
            emitter.emit(List.of(first, first), null, "input-2").get(5, TimeUnit.SECONDS);
            emitter.emit(List.of(other), null, "input-2").get(5, TimeUnit.SECONDS);
            emitter.emit(List.of(first), null, "input-2").get(5, TimeUnit.SECONDS);

            List<Map<String, Object>> stored = stored(worker, new RouteEdge("identity", "detect", "sink").subject());
            assertThat(stored).extracting(o -> o.get("src_ip"))
                .containsExactly("10.0.0.1", "10.0.0.2", "10.0.0.1", "10.0.0.1", "10.0.0.2");
            PublishReceipt again = worker.transport
                .publish(new OutboundMessage(new RouteEdge("identity", "detect", "sink").subject(),
                        worker.codec.encode(first),
                        RouteEmitter.messageId("input-1", "identity", "sink", RouteEmitter.keyId("alert:10.0.0.1"))))
                .get(5, TimeUnit.SECONDS);
            assertThat(again.duplicate()).as("the id is {input}/{group}/{to}/k:{key}").isTrue();
            assertThat(RouteEmitter.contentId(worker.codec.encode(first), 2)).matches("h:[0-9a-f]{32}\\.2");
        }
    }

    private static Event alert(String srcIp) {
        return Event.of("BruteForceSuspected", Map.of("src_ip", srcIp, "window_start", "2026-12-22T09:10:00Z"));
    }

    private static PipelineGroupSpec.PipelineSpec pipeline(String name) {
        return new PipelineGroupSpec.PipelineSpec(name, new PipelineGroupSpec.ProcessorSpec("test", Map.of()));
    }

    /**
     * Counts each event once in the state and emits {@code {"n", "by"}}, keyed by the
     * event's number.
     */
    private static EventProcessor countingAndEmitting(String by) {
        return (event, context) -> {
            KeyValueState state = context.state();
            String seen = "seen." + event.fields().get("n");
            if (state.get(seen).isEmpty()) {
                state.put(seen, new byte[] { 1 });
            }
            return List.of(context.keyed(Event.of("Out", Map.of("n", event.fields().get("n"), "by", by)),
                    "out:" + event.fields().get("n")));
        };
    }

    private static KeyValueStateFactory states(SubstrateFixture worker) {
        return KeyValueStateFactory.jetStream(worker.connection, worker.transport,
                new JetStreamKeyValueState.Settings(Duration.ofHours(1), 1, Duration.ofSeconds(2), 100_000),
                TestThreads.states());
    }

    /** The fields of the events stored on a subject of the routing stream, in order. */
    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> stored(SubstrateFixture worker, String subject) throws Exception {
        var state = worker.jsm().getStreamInfo(VarpulisJetStream.ROUTING_STREAM).getStreamState();
        List<Map<String, Object>> fields = new ArrayList<>();
        for (long seq = state.getFirstSequence(); seq <= state.getLastSequence(); seq++) {
            MessageInfo message;
            try {
                message = worker.jsm().getMessage(VarpulisJetStream.ROUTING_STREAM, seq);
            }
            catch (io.nats.client.JetStreamApiException e) {
                continue;
            }
            if (subject.equals(message.getSubject())) {
                fields.add(worker.codec.decode(message.getData()).fields());
            }
        }
        return fields;
    }

}
