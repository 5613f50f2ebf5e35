package io.varpulis.messaging;

import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.TraceContext;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * SPEC sections 13 and 14 with Spring Boot's own tracing (Brave, W3C propagation): a
 * service's template send, its {@code @NatsListener} call and the listener's reply are
 * one trace in parent order, and a rejected command's park is the child of its delivery,
 * whose span says it was parked and why.
 */
@BrokerTest
class NatsListenerObservationTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private final Queue<MutableSpan> spans = new ConcurrentLinkedQueue<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withUserConfiguration(NatsListenerTest.Service.class)
        .withBean(SpanHandler.class, () -> new SpanHandler() {
            @Override
            public boolean end(TraceContext context, MutableSpan span, Cause cause) {
                spans.add(span);
                return true;
            }
        })
        .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream",
                "varpulis.nats.jetstream.streams.T_CMD.subjects=t.cmd.>",
                "varpulis.nats.jetstream.streams.T_EVT.subjects=t.evt.>",
                "varpulis.nats.listeners.commands.max-deliver=3", "varpulis.nats.observation-enabled=true",
                "management.tracing.sampling.probability=1.0",
                // Spans stay in this test's handler; nothing is sent to a Zipkin on
                // localhost.
                "management.tracing.export.zipkin.enabled=false");

    @Test
    void aSendTheListenerCallAndItsReplyAreOneTrace_andAParkIsTheChildOfItsDelivery() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            NatsTemplate template = context.getBean(NatsTemplate.class);
            template.send(OutboundEvent.to("t.cmd.a", new NatsListenerTest.Command("o1", "apply"))).get();
            template.send(OutboundEvent.to("t.cmd.b", new NatsListenerTest.Command("o2", "reject"))).get();

            await().atMost(Duration.ofSeconds(20))
                .until(() -> find(s -> "t.evt.o1".equals(subject(s))).size() == 1
                        && find(s -> s.name() != null && s.name().startsWith("send varpulis.dlq")).size() == 1);
            MutableSpan sent = one(s -> "t.cmd.a".equals(subject(s)) && s.kind() == brave.Span.Kind.PRODUCER);
            MutableSpan applied = one(s -> "t.cmd.a".equals(subject(s)) && s.kind() == brave.Span.Kind.CONSUMER);
            MutableSpan reply = one(s -> "t.evt.o1".equals(subject(s)));
            assertThat(applied.parentId()).isEqualTo(sent.id());
            assertThat(reply.parentId()).as("the reply is published while the listener runs").isEqualTo(applied.id());
            assertThat(List.of(applied, reply)).allSatisfy(s -> assertThat(s.traceId()).isEqualTo(sent.traceId()));
            assertThat(applied.tags())
                .containsEntry("messaging.consumer.group.name",
                        context.getBean(NatsListenerEndpointRegistry.class)
                            .getListenerContainers()
                            .iterator()
                            .next()
                            .consumer()
                            .durable())
                .containsEntry("messaging.destination.name", "t.cmd.>")
                .containsEntry("varpulis.delivery.outcome", "acked");

            MutableSpan rejected = one(s -> "t.cmd.b".equals(subject(s)) && s.kind() == brave.Span.Kind.CONSUMER);
            MutableSpan park = one(s -> s.name() != null && s.name().startsWith("send varpulis.dlq"));
            assertThat(rejected.tags()).containsEntry("varpulis.delivery.outcome", "parked")
                .containsEntry("varpulis.delivery.park.reason", "unprocessable")
                .containsEntry("messaging.nats.delivery.attempt", "1");
            assertThat(park.parentId()).isEqualTo(rejected.id());
        });
    }

    @Test
    void aMessageWithoutATraceStartsOneAtTheListener() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            // A producer that traces nothing: no header at all.
            context.getBean(io.nats.client.Connection.class)
                .jetStream()
                .publish("t.cmd.a",
                        "{\"id\":\"o3\",\"action\":\"apply\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8));

            await().atMost(Duration.ofSeconds(20)).until(() -> find(s -> "t.evt.o3".equals(subject(s))).size() == 1);
            MutableSpan applied = one(s -> "t.cmd.a".equals(subject(s)) && s.kind() == brave.Span.Kind.CONSUMER);
            MutableSpan reply = one(s -> "t.evt.o3".equals(subject(s)));
            assertThat(applied.parentId()).as("a new trace, rooted at the delivery").isNull();
            assertThat(applied.remoteServiceName()).isEqualTo("nats");
            assertThat(reply.parentId()).isEqualTo(applied.id());
            assertThat(reply.traceId()).isEqualTo(applied.traceId());
        });
    }

    private static String subject(MutableSpan span) {
        return span.tag("messaging.nats.subject");
    }

    private List<MutableSpan> find(Predicate<MutableSpan> which) {
        return spans.stream().filter(which).toList();
    }

    private MutableSpan one(Predicate<MutableSpan> which) {
        List<MutableSpan> found = find(which);
        assertThat(found).as("exactly one such span in %s", spans).hasSize(1);
        return found.get(0);
    }

}
