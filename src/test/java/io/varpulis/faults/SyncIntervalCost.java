package io.varpulis.faults;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.test.NatsTestProperties;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.NatsClusterExtension;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.ClusterTransports;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishReceipt;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * What {@code sync_interval: always} costs on the production topology: the product's
 * publish loop (window of 1024 PubAcks) into an R3 {@code VARPULIS_ROUTING} on three
 * clustered servers, with the servers' default fsync (every 2 min) and with an fsync of
 * every write before it is acknowledged, alternating, in the same run.
 */
final class SyncIntervalCost {

    private static final int EVENTS = 20_000;

    private static final int ROUNDS = 3;

    private static final byte[] EVENT = ("{\"event_type\":\"SshAuthFailure\",\"timestamp\":\"2026-11-30T12:00:00Z\","
            + "\"fields\":{\"src_ip\":\"10.0.0.9\",\"user\":\"root\",\"failures\":1,\"line\":\"Dec 10 06:55:46 "
            + "LabSZ sshd[24200]: Failed password for invalid user webmaster from 173.234.31.186 port 38926 ssh2\"}}")
        .getBytes(StandardCharsets.UTF_8);

    /**
     * @return a row of events per second with each setting, and the ratio
     */
    Row run() throws Exception {
        List<Double> defaults = new ArrayList<>();
        List<Double> always = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            defaults.add(rate(""));
            always.add(rate("sync_interval: always"));
        }
        double byDefault = median(defaults);
        double synced = median(always);
        return new Row("sync", 1, true, EVENTS, EVENTS, "-", 0, -1, 0, Row.Twice.NONE, "-", String.format(
                "R3 publish loop, %d events of %d bytes, median of %d: default %.0f events/s, sync_interval: always "
                        + "%.0f events/s (%.0f %% of the default)",
                EVENTS, EVENT.length, ROUNDS, byDefault, synced, 100 * synced / byDefault));
    }

    private static double rate(String jetStream) throws Exception {
        try (NatsClusterExtension cluster = NatsClusterExtension.ofThree().withJetStream(jetStream)) {
            cluster.start();
            try (Connection connection = Nats.connect(
                    new Options.Builder().server(cluster.url()).connectionTimeout(Duration.ofSeconds(2)).build())) {
                NatsTestProperties settings = new NatsTestProperties();
                settings.streams().setReplicas(3);
                JetStreamAdmin admin = new JetStreamAdmin(connection, null);
                admin.provision(List.of(settings.streams().routingStream()), List.of());
                try (ClusterTransport transport = ClusterTransports.create(connection, Substrate.JETSTREAM, admin,
                        settings.transportSettings())) {
                    String subject = new RouteEdge("sync", "_external", "detect").subject();
                    publish(transport, subject, 2_000, "warm");
                    long started = System.nanoTime();
                    publish(transport, subject, EVENTS, "run");
                    return EVENTS / ((System.nanoTime() - started) / 1e9);
                }
            }
        }
    }

    private static void publish(ClusterTransport transport, String subject, int events, String prefix)
            throws Exception {
        List<CompletableFuture<PublishReceipt>> receipts = new ArrayList<>(events);
        for (int i = 0; i < events; i++) {
            receipts.add(transport.publish(new OutboundMessage(subject, EVENT, prefix + "-" + i)));
        }
        CompletableFuture.allOf(receipts.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }

}
