package io.varpulis.transport;

import java.io.IOException;
import java.util.Optional;

/**
 * A message the server stopped delivering to a durable consumer, as its max-deliveries
 * advisory names it (JSON
 * {@code {"type": "io.nats.jetstream.advisory.v1.max_deliver", "stream": "...", "consumer": "...",
 * "stream_seq": N, "deliveries": N}}).
 */
public interface GivenUpMessage {

    /** The advisories' subject root; {@code .{stream}.{durable}} follow. */
    String ADVISORY_ROOT = "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES";

    /**
     * @return the stream that holds it
     */
    String stream();

    /**
     * @return the durable consumer that gave it up
     */
    String durable();

    /**
     * @return its stream sequence
     */
    long streamSequence();

    /**
     * @return how many times the server delivered it (its max_deliver)
     */
    long deliveries();

    /**
     * Reads the stored message from the stream's leader (a blocking request: never on a
     * dispatcher thread).
     * @return it as a delivery on its last attempt, whose ack and nak send nothing (the
     * server no longer delivers it), or empty when the stream no longer holds it (its
     * max_age passed, or it was deleted)
     * @throws IOException when the stream cannot be asked (the broker is away)
     */
    Optional<Delivery> load() throws IOException;

}
