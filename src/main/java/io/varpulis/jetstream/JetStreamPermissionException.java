package io.varpulis.jetstream;

import io.varpulis.nats.NatsStartupException;

/**
 * The node's NATS user may not perform a JetStream operation it needs at startup (create
 * a stream or a consumer). ADR-007: nodes need that permission on first connect,
 * afterwards the objects exist.
 */
public class JetStreamPermissionException extends NatsStartupException {

    /**
     * @param object what could not be created or read, e.g.
     * {@code stream VARPULIS_ROUTING}
     * @param apiSubject the JetStream API subject the user needs to publish to
     * @param serverText the server's error text
     * @param inbox the connection's inbox subscription the answers need,
     * {@code _INBOX_worker_worker-1.>}
     * @param cause the client's error
     */
    public JetStreamPermissionException(String object, String apiSubject, String serverText, String inbox,
            Throwable cause) {
        super("The NATS user of this node may not access " + object + ": the server refused publishing to " + apiSubject
                + " (" + serverText + ").",
                "Grant the user publish permission on " + apiSubject + " (or on $JS.API.>) and subscribe "
                        + "permission on its own inbox " + inbox + " (the role's permission set in "
                        + "docs/OPERATING.md), or have an operator create " + object + " beforehand.",
                cause);
    }

}
