package io.varpulis.observation;

import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.varpulis.delivery.DeployedPipeline;
import io.varpulis.delivery.OutputEmitter;
import io.varpulis.delivery.RouteIngress;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.InMemoryKeyValueState;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.InMemoryTracing;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.OutboundMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static org.awaitility.Awaitility.await;

/**
 * What observation costs on the routed hop (issue 23, BENCHMARKS.md): in one JVM and one run, a publisher sends
 * {@value #EVENTS} events onto a route edge and a route ingress applies and acks them, with observation off (the
 * transport over jnats as it is), on without a tracer (the timers only: a Spring Boot service with no tracing bridge),
 * and on with Brave tracing every event (spans propagated in headers, kept in memory), alternating, median of
 * {@value #ROUNDS} after a warm-up, each round in another order. Not part of the suite (no {@code Test} suffix): {@code ./mvnw -o -q test -Dtest=ObservationCost}.
 */
@BrokerTest
class ObservationCost {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final int EVENTS = 5_000;
    private static final int ROUNDS = 5;

    private final InMemoryTracing tracing = new InMemoryTracing();

    @Test
    void routedHopWithObservationOffAndOn() throws Exception {
        Map<String, Function<ClusterTransport, ClusterTransport>> modes = new LinkedHashMap<>();
        modes.put("off", transport -> transport);
        modes.put("timers", transport -> {
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(
                    new DefaultMeterObservationHandler(new SimpleMeterRegistry()));
            return new ObservedClusterTransport(transport, registry, null, null);
        });
        modes.put("traced", transport -> new ObservedClusterTransport(transport, tracing.registry(), null, null));
        rate("warm-up", modes.get("traced"));
        Map<String, List<Double>> rates = new LinkedHashMap<>();
        List<String> order = new ArrayList<>(modes.keySet());
        for (int round = 0; round < ROUNDS; round++) {
            // A different mode goes first in each round, so that none always meets a colder JVM or a busier machine.
            Collections.rotate(order, 1);
            for (String mode : order) {
                tracing.spans().clear();
                rates.computeIfAbsent(mode, k -> new ArrayList<>()).add(rate(mode + round, modes.get(mode)));
            }
        }
        double off = median(rates.get("off"));
        System.out.printf("observation cost, %d events per round, median of %d (events/s through publish, PubAck, "
                + "delivery, apply, ack):%n", EVENTS, ROUNDS);
        modes.keySet().forEach(mode -> System.out.printf("  %-7s %8.0f events/s  %5.1f %% of off   rounds %s%n",
                mode, median(rates.get(mode)), 100 * median(rates.get(mode)) / off, rates.get(mode)));
        tracing.close();
    }

    private static double rate(String group, Function<ClusterTransport, ClusterTransport> observe) throws Exception {
        try (SubstrateFixture fixture = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            ClusterTransport transport = observe.apply(fixture.transport);
            RouteEdge edge = new RouteEdge(group, "_external", "p");
            AtomicInteger applied = new AtomicInteger();
            RouteIngress ingress = new RouteIngress(edge, List.of("*"), new DeployedPipeline(group, "p",
                    (event, context) -> {
                        applied.incrementAndGet();
                        return List.of();
                    }, new InMemoryKeyValueState()), OutputEmitter.NONE, fixture.codec, fixture.parker,
                    fixture.metrics, SubstrateFixture.TEST_NAK_DELAY, RouteIngress.OwnershipListener.NONE);
            byte[] event = fixture.codec.encode(Event.of("SshAuthFailure", Map.of("src_ip", "10.0.0.9", "user",
                    "root")));
            try (Consumption ignored = ingress.start(transport, fixture.properties.getJetstream().getConsumer())) {
                long started = System.nanoTime();
                List<CompletableFuture<?>> receipts = new ArrayList<>(EVENTS);
                for (int i = 0; i < EVENTS; i++) {
                    receipts.add(transport.publish(new OutboundMessage(edge.subject(), event, group + ":" + i)));
                }
                CompletableFuture.allOf(receipts.toArray(CompletableFuture[]::new)).join();
                await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(20))
                        .until(() -> applied.get() >= EVENTS);
                return EVENTS / ((System.nanoTime() - started) / 1e9);
            }
        }
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }
}
