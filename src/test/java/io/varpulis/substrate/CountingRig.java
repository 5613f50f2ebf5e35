package io.varpulis.substrate;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Dispatcher;
import io.nats.client.api.ConsumerInfo;
import io.varpulis.delivery.RouteEmitter;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.test.NatsTestProperties;
import io.varpulis.nats.Substrate;
import io.varpulis.jetstream.ConsumerSettings;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventProcessor;
import io.varpulis.pipeline.InMemoryKeyValueState;
import io.varpulis.pipeline.JetStreamKeyValueState;
import io.varpulis.pipeline.KeyValueState;
import io.varpulis.pipeline.KeyValueStateFactory;
import io.varpulis.pipeline.Partitioning;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.test.TestPipelines;
import io.varpulis.test.TestThreads;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishReceipt;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.awaitility.Awaitility.await;

/**
 * A two-hop job for fault tests, on one worker's substrate: {@code _external -> count}
 * ({@code Tick {"n": N}}) applied with JetStream state (key {@code seen.N}, and a
 * {@code total} raised once per new N: exact only if no update is lost or doubled), each
 * tick emitted as {@code Counted {"n": N}} on {@code count -> sink}, whose sink collects
 * the Ns. A tick with a negative N is poison: its processor always throws.
 */
final class CountingRig implements AutoCloseable {

    static final String GROUP = "faults";
    static final RouteEdge INPUT = new RouteEdge(GROUP, "_external", "count");
    static final RouteEdge OUTPUT = new RouteEdge(GROUP, "count", "sink");

    private static final ObjectMapper JSON = new ObjectMapper();

    final SubstrateFixture worker;

    final KeyValueState state;

    final Set<Integer> sunk = ConcurrentHashMap.newKeySet();

    /** The stream of the count pipeline's state bucket. */
    final String stateStream;

    /** When each tick was sent and stored, nanoTime, by N. */
    private final Map<Integer, long[]> timings = new ConcurrentHashMap<>();

    final AtomicInteger maxDeliveriesAdvisories = new AtomicInteger();

    /**
     * The MAX_DELIVERIES advisories received (JSON: stream, consumer, stream_seq,
     * deliveries), for failure output.
     */
    final List<String> maxDeliveries = new CopyOnWriteArrayList<>();

    private final List<Consumption> consumptions = new ArrayList<>();

    private final Dispatcher advisories;

    /**
     * @param url the server (or the cluster's URL list)
     * @param replicas stream and state replicas
     * @param ackWait the route consumers' ack_wait
     */
    CountingRig(String url, int replicas, Duration ackWait) throws Exception {
        NatsTestProperties properties = new NatsTestProperties();
        properties.streams().setReplicas(replicas);
        properties.publishing().setPublishTimeout(Duration.ofSeconds(2));
        properties.consumer().setNakDelay(SubstrateFixture.TEST_NAK_DELAY);
        properties.consumer().setAckWait(ackWait);
        worker = SubstrateFixture.connect(url, Substrate.JETSTREAM, properties);
        advisories = worker.connection.createDispatcher(msg -> {
            maxDeliveries.add(new String(msg.getData(), StandardCharsets.UTF_8));
            maxDeliveriesAdvisories.incrementAndGet();
        });
        advisories.subscribe("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.>");
        String pipeline = "count-" + System.nanoTime();
        stateStream = "KV_" + JetStreamKeyValueState.bucketName(GROUP, pipeline);
        state = KeyValueStateFactory
            .jetStream(worker.connection, worker.transport,
                    new JetStreamKeyValueState.Settings(Duration.ofHours(1), replicas, Duration.ofSeconds(2), 100_000),
                    TestThreads.states())
            .open(GROUP, pipeline, Partitioning.NONE, 1);
        PipelineGroupSpec.RouteSpec out = new PipelineGroupSpec.RouteSpec("count", "sink", List.of("Counted"));
        RouteEmitter emitter = TestPipelines.emitter(GROUP, List.of(out), worker.transport, worker.codec,
                worker.metrics);
        ConsumerSettings consumer = worker.consumer();
        consumptions
            .add(worker.ingress(INPUT, List.of("Tick"), counting(), state, emitter).start(worker.transport, consumer));
        consumptions.add(worker.ingress(OUTPUT, List.of("Counted"), (event, context) -> {
            sunk.add(((Number) event.fields().get("n")).intValue());
            return List.of();
        }, new InMemoryKeyValueState(), io.varpulis.delivery.OutputEmitter.NONE).start(worker.transport, consumer));
    }

    private static EventProcessor counting() {
        return (event, context) -> {
            int n = ((Number) event.fields().get("n")).intValue();
            if (n < 0) {
                throw new IllegalStateException("poison tick " + n);
            }
            KeyValueState state = context.state();
            if (state.get("seen." + n).isEmpty()) {
                state.put("seen." + n, "1".getBytes(StandardCharsets.UTF_8));
                long total = state.get("total")
                    .map(v -> Long.parseLong(new String(v, StandardCharsets.UTF_8)))
                    .orElse(0L);
                state.put("total", Long.toString(total + 1).getBytes(StandardCharsets.UTF_8));
            }
            return List.of(Event.of("Counted", Map.of("n", n)));
        };
    }

    /**
     * Publishes one tick until the stream stores it, trying again every 250 ms with the
     * same {@code Nats-Msg-Id} (a publisher that rides out the outage, like the demo's).
     */
    CompletableFuture<PublishReceipt> tick(int n) {
        OutboundMessage message = new OutboundMessage(INPUT.subject(),
                worker.codec.encode(Event.of("Tick", Map.of("n", n))), "tick-" + n);
        return untilStored(message, System.nanoTime() + TimeUnit.SECONDS.toNanos(120));
    }

    private CompletableFuture<PublishReceipt> untilStored(OutboundMessage message, long deadline) {
        return worker.transport.publish(message).handle((receipt, error) -> {
            if (error == null || System.nanoTime() > deadline) {
                return error == null ? CompletableFuture.completedFuture(receipt)
                        : CompletableFuture.<PublishReceipt>failedFuture(error);
            }
            return CompletableFuture
                .supplyAsync(() -> null, CompletableFuture.delayedExecutor(250, TimeUnit.MILLISECONDS))
                .thenCompose(ignored -> untilStored(message, deadline));
        }).thenCompose(f -> f);
    }

    /**
     * Publishes ticks 1 to {@code ticks}, one every {@code apart}, each until stored, and
     * waits for every PubAck.
     */
    void tickAll(int ticks, Duration apart) throws Exception {
        List<CompletableFuture<PublishReceipt>> stored = new ArrayList<>();
        long started = System.nanoTime();
        for (int n = 1; n <= ticks; n++) {
            long sent = System.nanoTime();
            int tick = n;
            stored.add(tick(n)
                .whenComplete((receipt, error) -> timings.put(tick, new long[] { sent, System.nanoTime() })));
            long wait = started + n * apart.toNanos() - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
        }
        CompletableFuture.allOf(stored.toArray(CompletableFuture[]::new)).get(180, TimeUnit.SECONDS);
    }

    /**
     * @param since a nanoTime (a kill)
     * @return how long after it the first tick sent after it was stored, ms: the broker's
     * time away for publishers
     */
    long storedAgainAfterMillis(long since) {
        return timings.values().stream().filter(t -> t[0] > since).mapToLong(t -> t[1]).min().orElse(since) / 1_000_000
                - since / 1_000_000;
    }

    /**
     * Waits until the sink has every tick and both edges' consumers have nothing pending
     * or unacked.
     */
    void awaitDrained(int ticks, Duration timeout) {
        await().atMost(timeout)
            .pollInterval(Duration.ofMillis(500))
            .until(() -> sunk.size() >= ticks && consumer(INPUT).getNumAckPending() == 0
                    && consumer(INPUT).getNumPending() == 0 && consumer(OUTPUT).getNumAckPending() == 0);
    }

    /**
     * @return the consumers' redelivery counts, the broker retries and what was parked,
     * for the test's output
     */
    String figures() throws Exception {
        return String.format("redelivered input=%d sink=%d, broker retries=%.0f, parked=%s",
                consumer(INPUT).getRedelivered(), consumer(OUTPUT).getRedelivered(),
                worker.metrics.count("varpulis.events.retried", "pipeline", "count"), parked());
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * @return the {@code total} the pipeline's state holds
     */
    long total() {
        return state.get("total").map(v -> Long.parseLong(new String(v, StandardCharsets.UTF_8))).orElse(0L);
    }

    ConsumerInfo consumer(RouteEdge edge) throws Exception {
        return worker.jsm()
            .getConsumerInfo(VarpulisJetStream.ROUTING_STREAM, DurableNames.routeConsumer(edge.to(), edge.subject()));
    }

    long dlqDepth() throws Exception {
        return worker.jsm().getStreamInfo(VarpulisJetStream.DLQ_STREAM).getStreamState().getMsgCount();
    }

    /**
     * @return the reason of every parked event of the count pipeline, with its payload
     */
    List<String> parked() throws Exception {
        var info = worker.jsm().getStreamInfo(VarpulisJetStream.DLQ_STREAM).getStreamState();
        List<String> parked = new ArrayList<>();
        for (long seq = info.getFirstSequence(); info.getMsgCount() > 0 && seq <= info.getLastSequence(); seq++) {
            var envelope = JSON.readTree(worker.jsm().getMessage(VarpulisJetStream.DLQ_STREAM, seq).getData());
            parked.add(envelope.path("reason").asText() + " " + envelope.path("payload").asText());
        }
        return parked;
    }

    @Override
    public void close() throws Exception {
        consumptions.forEach(Consumption::close);
        state.close();
        worker.close();
    }

}
