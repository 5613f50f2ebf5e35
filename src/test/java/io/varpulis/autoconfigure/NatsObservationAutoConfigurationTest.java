package io.varpulis.autoconfigure;

import io.varpulis.observation.ObservedClusterTransport;

import io.varpulis.metrics.TimedClusterTransport;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Subscription;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import io.varpulis.observation.DefaultNatsSendObservationConvention;
import io.varpulis.observation.NatsMeterObservationHandler;
import io.varpulis.observation.NatsSendContext;
import io.varpulis.observation.NatsSendObservationConvention;
import io.varpulis.observation.ObservedRequestReply;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.InMemoryTracing;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.RequestReply;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code varpulis.nats.observation-enabled} (SPEC section 14): off by default, so no
 * trace header is written; on, every publish carries the configured propagation's
 * headers, and so does every request (commands, registration), whose handler continues
 * its trace; a convention bean replaces the default; a long-task timer per message only
 * when asked, and never when Boot's {@code ignored-meters} leaves them out.
 */
@BrokerTest
class NatsObservationAutoConfigurationTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.coreOnly();

    private final InMemoryTracing tracing = new InMemoryTracing();

    private Connection subscriber;

    @BeforeEach
    void connect() throws Exception {
        subscriber = Nats.connect(nats.url());
    }

    @AfterEach
    void close() throws Exception {
        subscriber.close();
        tracing.close();
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(NatsAutoConfiguration.class, SubstrateMetricsAutoConfiguration.class,
                            NatsObservationAutoConfiguration.class, TransportAutoConfiguration.class))
            .withBean(ObservationRegistry.class, tracing::registry)
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=core");
    }

    @Test
    void offByDefault_noTraceHeaderIsWritten() {
        runner().run(context -> assertThat(publishedHeader(context.getBean(ClusterTransport.class), "traceparent"))
            .isNull());
    }

    @Test
    void whenEnabled_everyPublishCarriesTheTraceContext() {
        runner().withPropertyValues("varpulis.nats.observation-enabled=true").run(context -> {
            assertThat(publishedHeader(context.getBean(ClusterTransport.class), "traceparent"))
                .matches("00-[0-9a-f]{32}-[0-9a-f]{16}-01");
            assertThat(tracing.meters()
                .find(DefaultNatsSendObservationConvention.NAME)
                .tag("messaging.destination.name", "svc.orders")
                .timer()).isNotNull();
        });
    }

    @Test
    void theObservationWrapsThePublishTimer_soTheTimerMeasuresThePublishAlone() {
        runner().withPropertyValues("varpulis.nats.observation-enabled=true")
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .run(context -> assertThat(context.getBean(ClusterTransport.class)).isInstanceOfSatisfying(
                    ObservedClusterTransport.class,
                    observed -> assertThat(observed.delegate()).isInstanceOf(TimedClusterTransport.class)));
    }

    @Test
    void requestsCarryTheTraceContextOnlyWhenEnabled_andAServedRequestContinuesIt() {
        runner().run(context -> assertThat(
                requestHeader(context.getBean(RequestReply.class), context.getBean(Connection.class)))
            .isNull());
        runner().withPropertyValues("varpulis.nats.observation-enabled=true").run(context -> {
            RequestReply requests = context.getBean(RequestReply.class);
            assertThat(requests).isInstanceOf(ObservedRequestReply.class);
            String traceparent = requestHeader(requests, context.getBean(Connection.class));
            assertThat(traceparent).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-01");

            Dispatcher served = subscriber.createDispatcher(requests.serving(message -> {
            }));
            served.subscribe("svc.served");
            subscriber.flush(Duration.ofSeconds(2));
            Headers headers = new Headers().put("traceparent", traceparent);
            subscriber.publish(NatsMessage.builder().subject("svc.served").headers(headers).data(new byte[0]).build());
            await().atMost(Duration.ofSeconds(5)).until(() -> !tracing.named("process svc.served").isEmpty());
            assertThat(tracing.named("process svc.served").get(0).traceId()).as("the served request continues it")
                .isEqualTo(traceparent.split("-")[1]);
            subscriber.closeDispatcher(served);
        });
    }

    /**
     * The {@code traceparent} a request through the bean carries, read by a plain jnats
     * subscriber.
     */
    private String requestHeader(RequestReply requests, Connection connection) throws Exception {
        AtomicReference<Message> seen = new AtomicReference<>();
        Dispatcher answering = subscriber.createDispatcher(message -> {
            seen.set(message);
            subscriber.publish(message.getReplyTo(), "{}".getBytes(StandardCharsets.UTF_8));
        });
        answering.subscribe("svc.cmd");
        subscriber.flush(Duration.ofSeconds(2));
        requests.request(connection, "svc.cmd", "{}".getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(5))
            .get(10, TimeUnit.SECONDS);
        subscriber.closeDispatcher(answering);
        assertThat(seen.get()).as("the request").isNotNull();
        return seen.get().getHeaders() == null ? null : seen.get().getHeaders().getFirst("traceparent");
    }

    @Test
    void aConventionBeanReplacesTheDefault() {
        runner().withPropertyValues("varpulis.nats.observation-enabled=true")
            .withBean(NatsSendObservationConvention.class, () -> new DefaultNatsSendObservationConvention() {
                @Override
                public String getName() {
                    return "orders.sent";
                }

                @Override
                public String getContextualName(NatsSendContext context) {
                    return "orders " + context.subject();
                }
            })
            .run(context -> {
                publishedHeader(context.getBean(ClusterTransport.class), "traceparent");
                assertThat(tracing.meters().find("orders.sent").timer()).isNotNull();
                assertThat(tracing.meters().find(DefaultNatsSendObservationConvention.NAME).timer()).isNull();
            });
    }

    @Test
    void aLongTaskTimerPerMessageOnlyWhenAsked_andNotWhenBootIgnoresThem() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        ApplicationContextRunner observed = runner().withBean(MeterRegistry.class, () -> meters)
            .withPropertyValues("varpulis.nats.observation-enabled=true");
        observed.run(context -> assertThat(activeAfterStart(context.getBean(NatsMeterObservationHandler.class), meters))
            .as("off by default")
            .isZero());
        observed.withPropertyValues("varpulis.nats.observation-long-task-timers=true")
            .run(context -> assertThat(activeAfterStart(context.getBean(NatsMeterObservationHandler.class), meters))
                .isOne());
        observed
            .withPropertyValues("varpulis.nats.observation-long-task-timers=true",
                    "management.metrics.observations.ignored-meters=long-task-timer")
            .run(context -> assertThat(activeAfterStart(context.getBean(NatsMeterObservationHandler.class), meters))
                .as("Boot's ignored-meters wins")
                .isZero());
    }

    /** Starts a publish's timing with the handler: how many long-task timers then run. */
    private static int activeAfterStart(NatsMeterObservationHandler handler, SimpleMeterRegistry meters) {
        meters.clear();
        NatsSendContext context = new NatsSendContext("svc.orders", null, null, true);
        context.setName(DefaultNatsSendObservationConvention.NAME);
        handler.onStart(context);
        return meters.find(DefaultNatsSendObservationConvention.NAME + ".active")
            .longTaskTimers()
            .stream()
            .mapToInt(timer -> timer.activeTasks())
            .sum();
    }

    private String publishedHeader(ClusterTransport transport, String header) throws Exception {
        Subscription subscription = subscriber.subscribe("svc.orders");
        subscriber.flush(Duration.ofSeconds(2));
        transport.publish(OutboundMessage.of("svc.orders", "{\"id\":1}")).get();
        Message message = subscription.nextMessage(Duration.ofSeconds(5));
        subscription.unsubscribe();
        assertThat(message).as("the published message").isNotNull();
        return message.getHeaders() == null ? null : message.getHeaders().getFirst(header);
    }

}
