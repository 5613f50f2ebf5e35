package io.varpulis.bench;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.ConsumerInfo;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.test.NatsServerExtension;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The benchmarks' nats-server: started by {@link NatsServerExtension} on a free 127.0.0.1
 * port with JetStream and a file store in a temp dir (deleted on close), never on 4222;
 * plus an admin connection that provisions ADR-007's streams, purges the routing stream
 * between runs and checks that every event was acked.
 */
final class Broker implements AutoCloseable {

    /** JetStream API error code of a missing consumer (nats-server's errors.json). */
    private static final int CONSUMER_NOT_FOUND = 10014;

    private final NatsServerExtension server = NatsServerExtension.jetStream();

    private final Connection admin;

    private final JetStreamManagement jsm;

    Broker() throws Exception {
        server.start();
        admin = connect(server.url());
        jsm = admin.jetStreamManagement();
        new JetStreamAdmin(admin, null).provision(VarpulisJetStream.builtInStreams(1), List.of());
    }

    /**
     * @param url the server
     * @return a connection with the options the product's test fixture uses
     * @throws Exception when the server is unreachable
     */
    static Connection connect(String url) throws Exception {
        return Nats.connect(new Options.Builder().server(url).connectionTimeout(Duration.ofSeconds(2)).build());
    }

    /**
     * Waits until the server has processed everything sent on the connection (a
     * subscription, for core).
     */
    static void flush(Connection connection) {
        try {
            connection.flush(Duration.ofSeconds(5));
        }
        catch (Exception e) {
            throw new IllegalStateException("flush: " + e, e);
        }
    }

    String url() {
        return server.url();
    }

    String serverVersion() {
        return admin.getServerInfo().getVersion();
    }

    Path storeDir() {
        return server.storeDir();
    }

    /** Empties VARPULIS_ROUTING, so that every run starts from the same store size. */
    void purgeRouting() throws Exception {
        jsm.purgeStream(VarpulisJetStream.ROUTING_STREAM);
    }

    /**
     * Waits until the durable has nothing pending and nothing awaiting an ack: every
     * event was delivered and its ack reached the server.
     * @return {@code true} when settled within the timeout
     */
    boolean settled(String durable, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            ConsumerInfo info = jsm.getConsumerInfo(VarpulisJetStream.ROUTING_STREAM, durable);
            if (info.getNumPending() == 0 && info.getNumAckPending() == 0) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(20);
        }
    }

    /**
     * @return whether the durable exists on VARPULIS_ROUTING
     */
    boolean consumerExists(String durable) throws Exception {
        try {
            jsm.getConsumerInfo(VarpulisJetStream.ROUTING_STREAM, durable);
            return true;
        }
        catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == CONSUMER_NOT_FOUND) {
                return false;
            }
            throw e;
        }
    }

    /**
     * Deletes a run's durable so consumers do not accumulate on the server between runs.
     */
    void deleteConsumer(String durable) throws Exception {
        jsm.deleteConsumer(VarpulisJetStream.ROUTING_STREAM, durable);
    }

    @Override
    public void close() {
        Closing.quietly(admin);
        server.close();
    }

}
