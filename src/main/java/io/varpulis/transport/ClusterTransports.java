package io.varpulis.transport;

import io.nats.client.Connection;
import io.nats.client.impl.Headers;
import io.nats.client.support.NatsJetStreamConstants;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.nats.Substrate;

/**
 * Creates a {@link ClusterTransport} from a jnats connection, with or without Spring.
 */
public final class ClusterTransports {

    private ClusterTransports() {
    }

    /**
     * Creates a transport with default settings; on JetStream, verifies JetStream is
     * available first.
     * @param connection an open connection (the caller keeps owning it)
     * @param substrate the substrate
     * @return the transport
     * @throws io.varpulis.jetstream.JetStreamUnavailableException when JetStream is
     * requested and the server does not have it (never falls back to core)
     */
    public static ClusterTransport create(Connection connection, Substrate substrate) {
        if (substrate == Substrate.JETSTREAM) {
            JetStreamAdmin admin = new JetStreamAdmin(connection, null);
            admin.verifyJetStream();
            return create(connection, substrate, admin, TransportSettings.defaults());
        }
        return create(connection, substrate, null, TransportSettings.defaults());
    }

    /**
     * Creates a transport.
     * @param connection an open connection (the caller keeps owning it)
     * @param substrate the substrate
     * @param admin the JetStream admin that creates durable consumers (required on
     * JetStream, ignored on core)
     * @param settings tuning
     * @return the transport
     * @throws IllegalArgumentException when JetStream is requested without an admin
     */
    public static ClusterTransport create(Connection connection, Substrate substrate, JetStreamAdmin admin,
            TransportSettings settings) {
        return create(connection, substrate, admin, settings, new StreamLatencies());
    }

    /**
     * Creates a transport that records how long each stream takes to answer its PubAcks.
     * @param connection an open connection (the caller keeps owning it)
     * @param substrate the substrate
     * @param admin the JetStream admin (required on JetStream, ignored on core)
     * @param settings tuning
     * @param latencies where PubAck times go, per stream (JetStream only)
     * @return the transport
     * @throws IllegalArgumentException when JetStream is requested without an admin
     */
    public static ClusterTransport create(Connection connection, Substrate substrate, JetStreamAdmin admin,
            TransportSettings settings, StreamLatencies latencies) {
        return switch (substrate) {
            case CORE -> new CoreTransport(connection);
            case JETSTREAM -> {
                if (admin == null) {
                    throw new IllegalArgumentException("the jetstream substrate needs a JetStreamAdmin");
                }
                yield new JetStreamTransport(connection, admin, settings, latencies);
            }
        };
    }

    /**
     * The bytes a NATS server counts against its {@code max_payload} for one message as
     * the transport of that substrate publishes it: the data and, on JetStream, the
     * header block with its {@code Nats-Msg-Id} (as jnats writes it). The client refuses
     * a larger message before sending it: it can never be stored.
     * @param substrate the substrate
     * @param message the message
     * @return its size, bytes
     */
    public static long payloadSize(Substrate substrate, OutboundMessage message) {
        if (substrate != Substrate.JETSTREAM || message.messageId() == null) {
            return message.data().length;
        }
        return message.data().length
                + new Headers().put(NatsJetStreamConstants.MSG_ID_HDR, message.messageId()).serializedLength();
    }

}
