package io.varpulis.jetstream;

import io.varpulis.nats.NatsStartupException;

/**
 * The jetstream substrate was requested and the server does not have JetStream: startup
 * fails, never falls back to core (ADR-007: silently downgrading an operator who asked
 * for durability reproduces the loss it exists to remove).
 */
public class JetStreamUnavailableException extends NatsStartupException {

    /**
     * @param serverUrl the server the node is connected to
     * @param reason what the server answered
     * @param cause the client's error
     */
    public JetStreamUnavailableException(String serverUrl, String reason, Throwable cause) {
        super("JetStream was requested (varpulis.nats.substrate=jetstream) but the NATS server at " + serverUrl
                + " does not have it enabled (" + reason + ").",
                "Start nats-server with -js (or add a 'jetstream {}' block to its configuration), or set "
                        + "VARPULIS_NATS_SUBSTRATE=core to keep the fire-and-forget behaviour, which loses events "
                        + "routed while a pipeline is down.",
                cause);
    }

}
