package io.varpulis.messaging;

import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.TraceContext;
import io.nats.client.Message;
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
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * SPEC sections 14 and 19 with Spring Boot's own tracing (Brave, W3C propagation): a
 * request is one {@code send} span from the request to its reply, the answering
 * listener's {@code process} span is its child, and the reply is published in that trace
 * and carries it; on core and on jetstream alike. A request that gets no reply ends its
 * span with the error.
 */
@BrokerTest
class NatsRequestReplyObservationTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private final Queue<MutableSpan> spans = new ConcurrentLinkedQueue<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withUserConfiguration(NatsRequestReplyTest.PriceService.class)
        .withBean(SpanHandler.class, () -> new SpanHandler() {
            @Override
            public boolean end(TraceContext context, MutableSpan span, Cause cause) {
                spans.add(span);
                return true;
            }
        })
        .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.observation-enabled=true",
                "management.tracing.sampling.probability=1.0", "management.tracing.export.zipkin.enabled=false");

    @Test
    void onJetStreamTheListenerIsTheChildOfTheRequest_andTheStoredReplyCarriesTheTrace() {
        runner
            .withPropertyValues("varpulis.nats.substrate=jetstream",
                    "varpulis.nats.jetstream.streams.T_PRICE.subjects=t.price.>",
                    "varpulis.nats.jetstream.streams.T_REPLY.subjects=varpulis.reply.>")
            .run(context -> {
                assertThat(context).hasNotFailed();
                Message reply = context.getBean(NatsTemplate.class)
                    .sendAndReceive(OutboundEvent.to("t.price.a", new NatsRequestReplyTest.Quote("leek", 1)),
                            Duration.ofSeconds(2))
                    .get();
                assertOneTrace(reply, "t.price.a");
            });
    }

    @Test
    void onCoreTheListenerIsTheChildOfTheRequest_andTheReplyCarriesTheTrace() {
        runner.withPropertyValues("varpulis.nats.substrate=core", "varpulis.nats.listeners.prices.subject=c.price.>")
            .run(context -> {
                assertThat(context).hasNotFailed();
                Message reply = context.getBean(NatsTemplate.class)
                    .sendAndReceive(OutboundEvent.to("c.price.a", new NatsRequestReplyTest.Quote("leek", 1)),
                            Duration.ofSeconds(2))
                    .get();
                assertOneTrace(reply, "c.price.a");

                assertThatThrownBy(() -> context.getBean(NatsTemplate.class)
                    .sendAndReceive("c.nobody", "?", String.class, Duration.ofSeconds(1))
                    .get()).hasCauseInstanceOf(NatsReplyException.class);
                MutableSpan failed = one(s -> "c.nobody".equals(subject(s)));
                assertThat(failed.tags()).containsEntry("error.type", "CancellationException");
            });
    }

    private void assertOneTrace(Message reply, String subject) {
        await().atMost(Duration.ofSeconds(10))
            .until(() -> find(s -> subject.equals(subject(s)) && s.kind() == brave.Span.Kind.CONSUMER).size() == 1
                    && find(s -> reply.getSubject().equals(subject(s))).size() == 1);
        MutableSpan request = one(s -> subject.equals(subject(s)) && s.kind() == brave.Span.Kind.PRODUCER);
        MutableSpan processed = one(s -> subject.equals(subject(s)) && s.kind() == brave.Span.Kind.CONSUMER);
        MutableSpan replied = one(s -> reply.getSubject().equals(subject(s)));
        assertThat(request.name()).isEqualTo("send " + subject);
        assertThat(processed.parentId()).as("the listener continues the request's trace").isEqualTo(request.id());
        assertThat(replied.parentId()).as("the reply is published while the listener runs").isEqualTo(processed.id());
        assertThat(List.of(processed, replied)).allSatisfy(s -> assertThat(s.traceId()).isEqualTo(request.traceId()));
        assertThat(request.finishTimestamp()).as("the request's span ends with its reply")
            .isGreaterThanOrEqualTo(replied.startTimestamp());
        assertThat(replied.tags()).as("a reply subject is a template, never one series per request")
            .containsEntry("messaging.destination.name", reply.getSubject().startsWith("varpulis.reply.")
                    ? "varpulis.reply.{requester}.{request}" : "_INBOX.{inbox}");
        assertThat(reply.getHeaders().getFirst("traceparent")).as("the reply carries the trace")
            .contains(request.traceId());
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
