package io.varpulis.nats;

import java.time.Duration;

/**
 * The timeouts and inbox of a NATS connection, as {@link NatsConnectionFactory} receives
 * them; where and how to connect are the {@link NatsConnectionDetails}.
 *
 * @param connectTimeout how long one connection attempt may take
 * @param reconnectWait wait between reconnection attempts
 * @param requestCleanupInterval how long a late reply (a PubAck after the publish
 * timeout) is still awaited
 * @param inboxPrefix the inbox prefix, or {@code null} for jnats' {@code _INBOX}
 */
public record ConnectionSettings(Duration connectTimeout, Duration reconnectWait, Duration requestCleanupInterval,
        String inboxPrefix) {
}
