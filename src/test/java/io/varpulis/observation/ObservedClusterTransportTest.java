package io.varpulis.observation;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Set;
import io.micrometer.observation.ObservationHandler;
import brave.handler.MutableSpan;
import brave.sampler.Sampler;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.nats.client.api.MessageInfo;
import io.varpulis.dlq.DeadLetterParker;
import io.varpulis.container.DeliveryContainer;
import io.varpulis.container.DeliveryContainerFactory;
import io.varpulis.delivery.OutputEmitter;
import io.varpulis.delivery.RouteIngress;
import io.varpulis.dlq.Caller;
import io.varpulis.dlq.DeadLetterConsole;
import io.varpulis.autoconfigure.DeadLetterProperties;
import io.varpulis.dlq.ParkedEvent;
import io.varpulis.dlq.ReplayRequest;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventProcessor;
import io.varpulis.pipeline.InMemoryKeyValueState;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.InMemoryTracing;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.test.TestPipelines;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.OutboundMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * SPEC section 14 on a real broker with a real tracer: one trace follows an event from
 * its inject through two pipelines, and a poison event's trace holds its five deliveries
 * and its park, whose DLQ message and death envelope name the trace that the console
 * shows, and to whose park span a replay is linked.
 */
@BrokerTest
class ObservedClusterTransportTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private final List<Consumption> consumptions = new ArrayList<>();

    private InMemoryTracing tracing;

    private SubstrateFixture fixture;

    private ObservedClusterTransport transport;

    private DeadLetterParker parker;

    private DeliveryContainerFactory containers;

    @BeforeEach
    void connect() throws Exception {
        tracing = new InMemoryTracing();
        fixture = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM);
        // As the auto-configuration wires them: the tracer decides sampling first,
        // untraced messages are only timed.
        transport = new ObservedClusterTransport(fixture.transport, tracing.registry(), null, null, tracing.traces(),
                tracing.untraced());
        parker = new DeadLetterParker(transport, fixture.codec.mapper(), Clock.systemUTC());
        containers = new DeliveryContainerFactory(transport, parker, SubstrateFixture.TEST_CONTAINERS,
                new ObservedDeliveries(tracing.registry(), null, tracing.traces(), tracing.untraced()));
    }

    @AfterEach
    void close() throws Exception {
        consumptions.forEach(Consumption::close);
        containers.close();
        fixture.close();
        tracing.close();
    }

    @Test
    void anInjectedEventAndWhatItsPipelinesEmitAreOneTraceInParentOrder() throws Exception {
        RouteEdge intoParse = new RouteEdge("traced", "_external", "parse");
        RouteEdge intoDetect = new RouteEdge("traced", "parse", "detect");
        List<Event> detected = new CopyOnWriteArrayList<>();
        start(intoParse, (event, context) -> List.of(Event.of("Parsed", Map.of("n", "1"))),
                TestPipelines.emitter("traced",
                        List.of(new PipelineGroupSpec.RouteSpec("parse", "detect", List.of("*"))), transport,
                        fixture.codec, fixture.metrics));
        start(intoDetect, (event, context) -> {
            detected.add(event);
            return List.of();
        }, OutputEmitter.NONE);

        Observation request = Observation.start("http.server.requests", tracing.registry());
        try (Observation.Scope scope = request.openScope()) {
            transport
                .publish(new OutboundMessage(intoParse.subject(),
                        fixture.codec.encode(Event.of("Raw", Map.of("n", "1"))), "inject:1"))
                .get();
        }
        finally {
            request.stop();
        }

        await().atMost(Duration.ofSeconds(20)).until(() -> tracing.named("process " + Destinations.ROUTE).size() == 2);
        MutableSpan api = tracing.named("http.server.requests").get(0);
        List<MutableSpan> sends = tracing.named("send " + Destinations.ROUTE);
        List<MutableSpan> processes = tracing.named("process " + Destinations.ROUTE);
        assertThat(detected).hasSize(1);
        assertThat(sends).hasSize(2);
        MutableSpan inject = span(sends, "messaging.message.id", "inject:1");
        MutableSpan parse = span(processes, "messaging.consumer.group.name",
                DurableNames.routeConsumer("parse", intoParse.subject()));
        MutableSpan emit = sends.stream().filter(s -> s != inject).findFirst().orElseThrow();
        MutableSpan detect = span(processes, "messaging.consumer.group.name",
                DurableNames.routeConsumer("detect", intoDetect.subject()));
        assertThat(List.of(inject, parse, emit, detect))
            .allSatisfy(s -> assertThat(s.traceId()).isEqualTo(api.traceId()));
        assertThat(inject.parentId()).as("the publish is the child of the request").isEqualTo(api.id());
        assertThat(parse.parentId()).as("the delivery continues its publish's trace").isEqualTo(inject.id());
        assertThat(emit.parentId()).as("an output is published while its input is processed").isEqualTo(parse.id());
        assertThat(detect.parentId()).isEqualTo(emit.id());
        assertThat(detect.tags()).containsEntry("messaging.system", "nats")
            .containsEntry("messaging.operation.type", "process")
            .containsEntry("messaging.destination.name", "varpulis.cluster.pipeline.{group}.{from}.{to}")
            .containsEntry("varpulis.delivery.outcome", "acked")
            .containsEntry("messaging.nats.subject", intoDetect.subject())
            .containsEntry("messaging.nats.delivery.attempt", "1")
            .containsKey("messaging.nats.stream.sequence");
        await().atMost(Duration.ofSeconds(5))
            .until(() -> tracing.meters()
                .find(DefaultNatsProcessObservationConvention.NAME)
                .tag("varpulis.delivery.outcome", "acked")
                .timers()
                .stream()
                .mapToLong(Timer::count)
                .sum() == 2);
        assertThat(tracing.meters().find(DefaultNatsProcessObservationConvention.NAME).timers())
            .as("one timer per durable, with low-cardinality tags only")
            .hasSize(2)
            .allSatisfy(timer -> assertThat(timer.getId().getTags()).noneMatch(
                    tag -> tag.getKey().startsWith("messaging.nats.") || tag.getKey().equals("messaging.message.id")));
    }

    @Test
    void anUnsampledDeliveryMakesNoSpan_itsOutputCarriesItsTraceparentThrough_andTheTimersStillCount()
            throws Exception {
        RouteEdge intoParse = new RouteEdge("unsampled", "_external", "parse");
        RouteEdge intoDetect = new RouteEdge("unsampled", "parse", "detect");
        List<String> detectedWith = new CopyOnWriteArrayList<>();
        start(intoParse, (event, context) -> List.of(Event.of("Parsed", Map.of("n", "1"))),
                TestPipelines.emitter("unsampled",
                        List.of(new PipelineGroupSpec.RouteSpec("parse", "detect", List.of("*"))), transport,
                        fixture.codec, fixture.metrics));
        RouteIngress detect = new RouteIngress(intoDetect, List.of("*"),
                TestPipelines.deployed(intoDetect.group(), intoDetect.to(), (event, context) -> List.of(),
                        new InMemoryKeyValueState()),
                OutputEmitter.NONE, fixture.codec, parker, RouteIngress.OwnershipListener.NONE);
        consumptions.add(containers
            .create(VarpulisJetStream.routeEdgeConsumer(intoDetect.to(), intoDetect.subject(), fixture.consumer()),
                    intoDetect.to(), fixture.metrics.deliveries(intoDetect.to(), SubstrateMetrics.UNPARTITIONED, true),
                    1, delivery -> {
                        detectedWith.add(delivery.headers() == null ? "none"
                                : String.valueOf(delivery.headers().getFirst("traceparent")));
                        return detect.handle(delivery);
                    })
            .start());

        // A publisher whose trace was sampled out upstream: flags 00.
        String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00";
        fixture.transport
            .publish(new OutboundMessage(intoParse.subject(), fixture.codec.encode(Event.of("Raw", Map.of("n", "1"))),
                    "unsampled:1", Map.of("traceparent", traceparent), null, null))
            .get();

        await().atMost(Duration.ofSeconds(20))
            .until(() -> tracing.meters()
                .find(DefaultNatsProcessObservationConvention.NAME)
                .timers()
                .stream()
                .mapToLong(Timer::count)
                .sum() == 2);
        assertThat(detectedWith).as("the output carries its input's trace context through, unchanged")
            .containsExactly(traceparent);
        assertThat(tracing.spans()).as("no span for an unsampled delivery or its output").isEmpty();
        assertThat(tracing.meters().find(DefaultNatsSendObservationConvention.NAME).timers())
            .as("the output's publish is timed")
            .singleElement()
            .satisfies(timer -> assertThat(timer.count()).isOne());
        assertThat(tracing.meters().find(DefaultNatsProcessObservationConvention.NAME + ".active").longTaskTimers())
            .as("no long-task timer per message")
            .isEmpty();
    }

    @Test
    void anUnsampledRootWritesNoTraceHeadersBetweenPipelines_butOntoAnEntryItsDecision_andTheTimersCount()
            throws Exception {
        close();
        tracing = new InMemoryTracing(Sampler.NEVER_SAMPLE);
        fixture = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM);
        transport = new ObservedClusterTransport(fixture.transport, tracing.registry(), null, null, tracing.traces(),
                tracing.untraced());
        parker = new DeadLetterParker(transport, fixture.codec.mapper(), Clock.systemUTC());
        containers = new DeliveryContainerFactory(transport, parker, SubstrateFixture.TEST_CONTAINERS,
                new ObservedDeliveries(tracing.registry(), null, tracing.traces(), tracing.untraced()));
        RouteEdge intoParse = new RouteEdge("rooted", "_external", "parse");
        RouteEdge intoDetect = new RouteEdge("rooted", "parse", "detect");
        List<String> parsedWith = new CopyOnWriteArrayList<>();
        List<String> detectedWith = new CopyOnWriteArrayList<>();
        RouteIngress parse = new RouteIngress(intoParse, List.of("*"),
                TestPipelines.deployed(intoParse.group(), intoParse.to(),
                        (event, context) -> List.of(Event.of("Parsed", Map.of("n", "1"))), new InMemoryKeyValueState()),
                TestPipelines.emitter("rooted",
                        List.of(new PipelineGroupSpec.RouteSpec("parse", "detect", List.of("*"))), transport,
                        fixture.codec, fixture.metrics),
                fixture.codec, parker, RouteIngress.OwnershipListener.NONE);
        RouteIngress detect = new RouteIngress(intoDetect, List.of("*"),
                TestPipelines.deployed(intoDetect.group(), intoDetect.to(), (event, context) -> List.of(),
                        new InMemoryKeyValueState()),
                OutputEmitter.NONE, fixture.codec, parker, RouteIngress.OwnershipListener.NONE);
        consume(intoParse, parse, parsedWith);
        consume(intoDetect, detect, detectedWith);

        // Root publishes (no current observation) that the sampler samples out: one into
        // the cluster, one between two pipelines.
        transport
            .publish(new OutboundMessage(intoParse.subject(), fixture.codec.encode(Event.of("Raw", Map.of("n", "1"))),
                    "rooted:1"))
            .get();
        await().atMost(Duration.ofSeconds(20)).until(() -> detectedWith.size() == 1);
        transport
            .publish(new OutboundMessage(intoDetect.subject(),
                    fixture.codec.encode(Event.of("Parsed", Map.of("n", "2"))), "rooted:2"))
            .get();

        await().atMost(Duration.ofSeconds(20))
            .until(() -> tracing.meters()
                .find(DefaultNatsProcessObservationConvention.NAME)
                .timers()
                .stream()
                .mapToLong(Timer::count)
                .sum() == 3);
        assertThat(parsedWith).as("onto an entry, where a header-less delivery is an outside producer's")
            .singleElement()
            .asString()
            .matches("00-[0-9a-f]{32}-[0-9a-f]{16}-00");
        assertThat(detectedWith).as("carried through by its output; none between pipelines (issue 32)")
            .containsExactly(parsedWith.get(0), "none");
        assertThat(tracing.spans()).as("no span").isEmpty();
        assertThat(tracing.meters().find(DefaultNatsSendObservationConvention.NAME).timers())
            .as("every publish is timed")
            .singleElement()
            .satisfies(timer -> assertThat(timer.count()).isEqualTo(3));
    }

    @Test
    void aRouteEdgeDeliveryWithoutTraceHeadersIsAnUnsampledRootsEvenWhenTheSamplerWouldSampleIt() throws Exception {
        RouteEdge intoDetect = new RouteEdge("headerless", "parse", "detect");
        List<String> detectedWith = new CopyOnWriteArrayList<>();
        RouteIngress detect = new RouteIngress(intoDetect, List.of("*"),
                TestPipelines.deployed(intoDetect.group(), intoDetect.to(), (event, context) -> List.of(),
                        new InMemoryKeyValueState()),
                OutputEmitter.NONE, fixture.codec, parker, RouteIngress.OwnershipListener.NONE);
        consume(intoDetect, detect, detectedWith);

        // As a node publishes a root its sampler sampled out: no header.
        fixture.transport
            .publish(new OutboundMessage(intoDetect.subject(),
                    fixture.codec.encode(Event.of("Parsed", Map.of("n", "1"))), "headerless:1"))
            .get();

        await().atMost(Duration.ofSeconds(20))
            .until(() -> tracing.meters()
                .find(DefaultNatsProcessObservationConvention.NAME)
                .timers()
                .stream()
                .mapToLong(Timer::count)
                .sum() == 1);
        assertThat(detectedWith).containsExactly("none");
        assertThat(tracing.spans()).as("the publisher's decision holds: no span, though this sampler samples all")
            .isEmpty();
    }

    @Test
    void aSampledObservationThatAnUnsampledDeliverysProcessingStartsContinuesOnWhatItPublishes() throws Exception {
        RouteEdge intoWork = new RouteEdge("child", "_external", "work");
        RouteEdge intoOut = new RouteEdge("child", "work", "out");
        List<String> outWith = new CopyOnWriteArrayList<>();
        consumptions.add(containers
            .create(VarpulisJetStream.routeEdgeConsumer(intoWork.to(), intoWork.subject(), fixture.consumer()),
                    intoWork.to(), fixture.metrics.deliveries(intoWork.to(), SubstrateMetrics.UNPARTITIONED, true), 1,
                    delivery -> {
                        // The application's own observation, a new trace its sampler
                        // keeps.
                        Observation.createNotStarted("app.work", tracing.registry())
                            .observe(() -> transport
                                .publish(new OutboundMessage(intoOut.subject(),
                                        fixture.codec.encode(Event.of("Worked", Map.of("n", "1"))), "child:out"))
                                .join());
                        return java.util.concurrent.CompletableFuture
                            .completedFuture(io.varpulis.container.Outcome.applied());
                    })
            .start());
        RouteIngress out = new RouteIngress(intoOut, List.of("*"),
                TestPipelines.deployed(intoOut.group(), intoOut.to(), (event, context) -> List.of(),
                        new InMemoryKeyValueState()),
                OutputEmitter.NONE, fixture.codec, parker, RouteIngress.OwnershipListener.NONE);
        consume(intoOut, out, outWith);

        String unsampled = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00";
        fixture.transport
            .publish(new OutboundMessage(intoWork.subject(), fixture.codec.encode(Event.of("Raw", Map.of("n", "1"))),
                    "child:1", Map.of("traceparent", unsampled), null, null))
            .get();

        await().atMost(Duration.ofSeconds(20)).until(() -> tracing.named("process " + Destinations.ROUTE).size() == 1);
        MutableSpan work = tracing.named("app.work").get(0);
        MutableSpan send = tracing.named("send " + Destinations.ROUTE).get(0);
        MutableSpan received = tracing.named("process " + Destinations.ROUTE).get(0);
        assertThat(outWith).singleElement().asString().startsWith("00-" + work.traceId()).endsWith("-01");
        assertThat(send.parentId()).as("the publish is the application observation's child").isEqualTo(work.id());
        assertThat(received.parentId()).isEqualTo(send.id());
        assertThat(received.traceId()).isEqualTo(work.traceId());
    }

    @Test
    void anOutsideProducersEventWithoutTraceHeadersStartsATraceWhereItEntersTheCluster() throws Exception {
        RouteEdge intoEntry = new RouteEdge("headerless", "_external", "entry");
        List<String> enteredWith = new CopyOnWriteArrayList<>();
        RouteIngress entry = new RouteIngress(intoEntry, List.of("*"),
                TestPipelines.deployed(intoEntry.group(), intoEntry.to(), (event, context) -> List.of(),
                        new InMemoryKeyValueState()),
                OutputEmitter.NONE, fixture.codec, parker, RouteIngress.OwnershipListener.NONE);
        consume(intoEntry, entry, enteredWith);

        // A log feeder, a Rust node or a service that traces nothing: no header.
        fixture.transport
            .publish(new OutboundMessage(intoEntry.subject(), fixture.codec.encode(Event.of("Raw", Map.of("n", "1"))),
                    "outside:1"))
            .get();

        await().atMost(Duration.ofSeconds(20)).until(() -> tracing.named("process " + Destinations.ROUTE).size() == 1);
        MutableSpan process = tracing.named("process " + Destinations.ROUTE).get(0);
        assertThat(process.parentId()).as("a new trace, its root the first pipeline's delivery").isNull();
        assertThat(process.kind()).isEqualTo(brave.Span.Kind.CONSUMER);
        assertThat(enteredWith).containsExactly("none");
    }

    private void consume(RouteEdge edge, RouteIngress ingress, List<String> seenWith) {
        consumptions.add(containers
            .create(VarpulisJetStream.routeEdgeConsumer(edge.to(), edge.subject(), fixture.consumer()), edge.to(),
                    fixture.metrics.deliveries(edge.to(), SubstrateMetrics.UNPARTITIONED, true), 1, delivery -> {
                        seenWith.add(delivery.headers() == null ? "none"
                                : String.valueOf(delivery.headers().getFirst("traceparent")).replace("null", "none"));
                        return ingress.handle(delivery);
                    })
            .start());
    }

    @Test
    void aPoisonEventsTraceHoldsItsFiveDeliveriesAndItsParkAndTheParkedMessageNamesIt() throws Exception {
        RouteEdge intoPoisoned = new RouteEdge("traced", "_external", "poisoned");
        start(intoPoisoned, (event, context) -> {
            throw new IllegalStateException("cannot apply " + event.eventType());
        }, OutputEmitter.NONE);

        transport
            .publish(new OutboundMessage(intoPoisoned.subject(), fixture.codec.encode(Event.of("Poison", Map.of())),
                    "inject:poison"))
            .get();

        String dlq = DurableNames.dlqSubject("poisoned");
        await().atMost(Duration.ofSeconds(30))
            .until(() -> tracing.named("send " + Destinations.DLQ).size() == 1
                    && tracing.named("process " + Destinations.ROUTE).size() == 5);
        MutableSpan inject = tracing.named("send " + Destinations.ROUTE).get(0);
        List<MutableSpan> deliveries = tracing.named("process " + Destinations.ROUTE);
        assertThat(deliveries).allSatisfy(s -> assertThat(s.traceId()).isEqualTo(inject.traceId()))
            .allSatisfy(s -> assertThat(s.parentId()).isEqualTo(inject.id()));
        assertThat(deliveries).extracting(s -> s.tag("varpulis.delivery.outcome"))
            .containsExactly("nak", "nak", "nak", "nak", "parked");
        assertThat(deliveries).extracting(s -> s.tag("messaging.nats.delivery.attempt"))
            .containsExactly("1", "2", "3", "4", "5");
        assertThat(deliveries.get(4).tags()).containsEntry("varpulis.delivery.park.reason", "max_deliver");
        MutableSpan park = tracing.named("send " + Destinations.DLQ).get(0);
        assertThat(park.parentId()).as("the park is the child of the delivery that failed last")
            .isEqualTo(deliveries.get(4).id());

        MessageInfo parked = fixture.jsm().getLastMessage(VarpulisJetStream.DLQ_STREAM, dlq);
        String traceparent = parked.getHeaders().getFirst("traceparent");
        assertThat(ObservedClusterTransport.traceId(traceparent)).as("the parked message names the trace")
            .isEqualTo(inject.traceId());
        assertThat(fixture.codec.mapper().readTree(parked.getData()).path("trace_id").asText())
            .as("the death envelope names the trace of the delivery that failed")
            .isEqualTo(inject.traceId());
        assertThat(consumptions).as("every delivery was settled")
            .allSatisfy(c -> assertThat(((DeliveryContainer) c).inFlight()).isZero());

        DeadLetterProperties properties = new DeadLetterProperties();
        properties.setWriteEnabled(true);
        DeadLetterConsole console = new DeadLetterConsole(fixture.connection, transport, fixture.codec.mapper(),
                properties.toSettings());
        ParkedEvent shown = console.show(parked.getSeq());
        assertThat(shown.envelope()).as("the console shows the trace a parked event kept")
            .containsEntry("traceparent", traceparent);
        consumptions.forEach(Consumption::close);
        consumptions.clear();
        console.replay(ReplayRequest.ofSequence(parked.getSeq()), Caller.anonymous());
        await().atMost(Duration.ofSeconds(10))
            .until(() -> tracing.named("send " + Destinations.ROUTE).size() == 2
                    && tracing.named(ObservedClusterTransport.REPLAY_SPAN).size() == 1);
        MutableSpan replay = tracing.named("send " + Destinations.ROUTE).get(1);
        assertThat(replay.tags()).as("the replay names the trace that parked the event")
            .containsEntry("varpulis.parked.trace.id", inject.traceId())
            .containsEntry("messaging.nats.subject", intoPoisoned.subject());
        MutableSpan linked = tracing.named(ObservedClusterTransport.REPLAY_SPAN).get(0);
        assertThat(replay.parentId()).as("the replay is sent under the linked span").isEqualTo(linked.id());
        assertThat(linked.traceId()).as("a replay is a trace of its own").isNotEqualTo(inject.traceId());
        assertThat(linked.tags()).as("Micrometer's Brave bridge records the span link as tags")
            .containsEntry("links[0].traceId", inject.traceId())
            .containsEntry("links[0].spanId", park.id())
            .containsEntry("varpulis.parked.trace.id", inject.traceId());
    }

    @Test
    void anObservationHandlerThatThrows_neverStopsARouteEdge_norCostsAnEvent() throws Exception {
        AtomicInteger sends = new AtomicInteger();
        AtomicInteger processes = new AtomicInteger();
        tracing.registry().observationConfig().observationHandler(new ObservationHandler<Observation.Context>() {
            @Override
            public void onStart(Observation.Context context) {
                if (context instanceof NatsSendContext && sends.incrementAndGet() % 7 == 0) {
                    throw new IllegalStateException("exporter bug when a send starts");
                }
                if (context instanceof NatsProcessContext && processes.incrementAndGet() % 10 == 0) {
                    throw new IllegalStateException("exporter bug when a process starts");
                }
            }

            @Override
            public void onStop(Observation.Context context) {
                if (context instanceof NatsSendContext && sends.get() % 5 == 0) {
                    throw new IllegalStateException("exporter bug when a send stops");
                }
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });
        RouteEdge intoParse = new RouteEdge("buggy", "_external", "parse");
        RouteEdge intoDetect = new RouteEdge("buggy", "parse", "detect");
        Set<String> detected = ConcurrentHashMap.newKeySet();
        start(intoParse, (event, context) -> List.of(Event.of("Parsed", Map.of("n", event.fields().get("n")))),
                TestPipelines.emitter("buggy",
                        List.of(new PipelineGroupSpec.RouteSpec("parse", "detect", List.of("*"))), transport,
                        fixture.codec, fixture.metrics));
        start(intoDetect, (event, context) -> {
            detected.add(String.valueOf(event.fields().get("n")));
            return List.of();
        }, OutputEmitter.NONE);
        for (int n = 0; n < 100; n++) {
            fixture.transport
                .publish(new OutboundMessage(intoParse.subject(),
                        fixture.codec.encode(Event.of("Raw", Map.of("n", String.valueOf(n)))), "buggy:" + n))
                .get();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> detected.size() == 100);
        assertThat(consumptions).allSatisfy(c -> assertThat(((DeliveryContainer) c).isRunning()).isTrue());
        assertThat(fixture.metrics.registry().find("varpulis.events.parked").counters())
            .allSatisfy(c -> assertThat(c.count()).isZero());
    }

    private void start(RouteEdge edge, EventProcessor processor, OutputEmitter emitter) {
        RouteIngress ingress = new RouteIngress(edge, List.of("*"),
                TestPipelines.deployed(edge.group(), edge.to(), processor, new InMemoryKeyValueState()), emitter,
                fixture.codec, parker, RouteIngress.OwnershipListener.NONE);
        consumptions
            .add(containers
                .create(VarpulisJetStream.routeEdgeConsumer(edge.to(), edge.subject(), fixture.consumer()), edge.to(),
                        fixture.metrics.deliveries(edge.to(), SubstrateMetrics.UNPARTITIONED, true), 1, ingress)
                .start());
    }

    private static MutableSpan span(List<MutableSpan> spans, String tag, String value) {
        return spans.stream()
            .filter(s -> value.equals(s.tag(tag)))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no span with " + tag + "=" + value + " in " + spans));
    }

}
