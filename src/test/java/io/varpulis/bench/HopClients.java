package io.varpulis.bench;

import io.varpulis.nats.Substrate;

import java.util.List;

/**
 * The clients of the routed hop's throughput rounds, by their {@code --hop-clients}
 * names: what each carries an event over one route edge with, so that one run measures
 * them side by side.
 * <ul>
 * <li>{@code product}: the cluster's own hop, {@link ProductHopClient};</li>
 * <li>{@code product-traceparent}: the same, each event with a sampled-out
 * {@code traceparent} header and no observation: what the trace context costs on the wire
 * (issue 32; JetStream);</li>
 * <li>{@code raw}: raw jnats ({@link RawJetStreamHopClient}, {@link RawCoreHopClient} on
 * core), the baseline;</li>
 * <li>{@code raw-codec}: raw jnats decoding each event with the product's codec, as the
 * ingress must (JetStream);</li>
 * <li>{@code observed-10}, {@code observed-100}: the product with observation on (issue
 * 23), Brave sampling 10 % (Spring Boot's default) and 100 % (JetStream);</li>
 * <li>{@code listener}: a service's {@code @NatsListener} fed by its {@code NatsTemplate}
 * (issue 22; JetStream);</li>
 * <li>{@code listener-observed-10}: the same with observation on, Brave sampling 10 %
 * (issue 32; JetStream);</li>
 * <li>{@code raw-listener}: a plain jnats pull consumer doing the listener's work by hand
 * (issue 34; JetStream);</li>
 * <li>{@code raw-observed-10}, {@code raw-observed-100}: {@code raw-codec} observed by
 * hand with Micrometer and Boot's standard handlers, no substrate code: what the tracer
 * itself charges a hop (issue 32's reference; JetStream).</li>
 * </ul>
 */
final class HopClients {

    /** Every client, in the order of a round (round r starts with the r-th). */
    static final List<String> ALL = List.of("product", "raw", "raw-codec", "product-traceparent", "observed-10",
            "observed-100", "listener", "listener-observed-10", "raw-listener", "raw-observed-10", "raw-observed-100");

    /** The clients that also run on core. */
    private static final List<String> ON_CORE = List.of("product", "raw");

    private HopClients() {
    }

    /**
     * @param substrate the substrate
     * @param chosen the {@code --hop-clients} names
     * @return those that run on the substrate, in round order
     */
    static List<String> on(Substrate substrate, List<String> chosen) {
        return ALL.stream()
            .filter(chosen::contains)
            .filter(name -> substrate == Substrate.JETSTREAM || ON_CORE.contains(name))
            .toList();
    }

    /**
     * @param name a client's name, one of {@link #ALL}
     * @param substrate the substrate
     * @param url the server
     * @param options the raw baseline's batch and decode
     * @return a new client, connected
     * @throws Exception when the server is unreachable
     */
    static HopClient create(String name, Substrate substrate, String url, BenchOptions options) throws Exception {
        return switch (name) {
            case "product" -> new ProductHopClient(url, substrate);
            case "raw" -> substrate == Substrate.CORE ? new RawCoreHopClient(url) : new RawJetStreamHopClient(url,
                    options.rawBatch(),
                    options.rawDecodes() ? RawJetStreamHopClient.Decode.JACKSON : RawJetStreamHopClient.Decode.NONE);
            case "raw-codec" -> new RawJetStreamHopClient(url, options.rawBatch(), RawJetStreamHopClient.Decode.CODEC);
            case "product-traceparent" -> ProductHopClient.withTraceparent(url, substrate);
            case "observed-10" -> new ProductHopClient(url, substrate, 0.1f);
            case "observed-100" -> new ProductHopClient(url, substrate, 1f);
            case "listener" -> new ListenerHopClient(url);
            case "listener-observed-10" -> new ListenerHopClient(url, 0.1f);
            case "raw-observed-100" -> new RawObservedHopClient(url, options.rawBatch(), 1f);
            case "raw-observed-10" -> new RawObservedHopClient(url, options.rawBatch(), 0.1f);
            case "raw-listener" ->
                new RawJetStreamHopClient(url, options.rawBatch(), RawJetStreamHopClient.Decode.RECORD);
            default -> throw new IllegalArgumentException("unknown hop client '" + name + "'; known: " + ALL);
        };
    }

}
