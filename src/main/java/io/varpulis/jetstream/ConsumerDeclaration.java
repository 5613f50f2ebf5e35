package io.varpulis.jetstream;

import io.nats.client.api.ConsumerConfiguration;

/**
 * A durable pull consumer the application needs, as a bean or created at run time for a
 * route edge: created when absent, never updated, like streams.
 *
 * @param stream the stream it reads
 * @param configuration its configuration (durable name, filter subject, ack policy,
 * limits)
 */
public record ConsumerDeclaration(String stream, ConsumerConfiguration configuration) {

    /**
     * @return the durable name
     */
    public String durable() {
        return configuration.getDurable();
    }

    /**
     * @return the subject it filters on
     */
    public String filterSubject() {
        return configuration.getFilterSubject();
    }
}
