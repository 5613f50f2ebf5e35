package io.varpulis.transport;

/**
 * A publish the substrate did not confirm: on JetStream no PubAck arrived in time, no stream captures the subject,
 * or the stream refused the message. The event is not published; the caller decides (the route ingress naks its
 * input so it is redelivered).
 */
public class PublishException extends RuntimeException {

    /**
     * @param subject the subject of the failed publish
     * @param reason  what failed
     * @param cause   the client's error, or {@code null}
     */
    public PublishException(String subject, String reason, Throwable cause) {
        super("publish to " + subject + " was not confirmed: " + reason, cause);
    }
}
