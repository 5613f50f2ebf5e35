package io.varpulis.jetstream.eviction;

import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.StreamInfo;
import io.nats.client.api.StreamState;

/**
 * What the server said about a durable consumer and its stream at one moment, as the
 * {@link EvictionLedger} keeps it between rounds: the stream's state is read after the
 * consumer's, so every event the consumer counted as pending has a sequence at most
 * {@code last}.
 *
 * @param created when the consumer was created: another value is another consumer (a
 * deleted durable created again), never compared with this one; {@value #NEVER_CREATED}
 * for one that does not exist
 * @param delivered the stream sequence of its last delivery
 * ({@code delivered.stream_seq}): the events after it that match its filter are pending
 * @param deliveries its deliveries so far, redeliveries included
 * ({@code delivered.consumer_seq})
 * @param ackFloor the stream sequence up to which it acked everything
 * ({@code ack_floor.stream_seq})
 * @param pending events matching its filter not delivered yet ({@code num_pending})
 * @param ackPending events delivered and not acked yet ({@code num_ack_pending})
 * @param waiting pull requests waiting ({@code num_waiting}): none means nobody consumes
 * @param first the stream's first sequence: everything before it is gone
 * @param last the stream's last sequence
 */
public record Observation(String created, long delivered, long deliveries, long ackFloor, long pending, long ackPending,
        long waiting, long first, long last) {

    /**
     * The {@code created} of a durable that does not exist (yet): a route edge whose
     * pipeline was never placed, whose events nobody has ever been given.
     */
    static final String NEVER_CREATED = "never";

    /**
     * @param consumer the consumer's info
     * @param stream its stream's info, asked after it
     * @return what they say
     */
    public static Observation of(ConsumerInfo consumer, StreamInfo stream) {
        StreamState state = stream.getStreamState();
        return new Observation(String.valueOf(consumer.getCreationTime()), consumer.getDelivered().getStreamSequence(),
                consumer.getDelivered().getConsumerSequence(), consumer.getAckFloor().getStreamSequence(),
                consumer.getNumPending(), consumer.getNumAckPending(), consumer.getNumWaiting(),
                state.getFirstSequence(), state.getLastSequence());
    }

    /**
     * @param subjectEvents the events the stream holds on the consumer's subject
     * @param stream the stream's info, with that count
     * @return what a durable that does not exist would say: nothing delivered, every
     * event on its subject pending
     */
    public static Observation ofAbsent(long subjectEvents, StreamInfo stream) {
        StreamState state = stream.getStreamState();
        return new Observation(NEVER_CREATED, 0, 0, 0, subjectEvents, 0, 0, state.getFirstSequence(),
                state.getLastSequence());
    }

    /**
     * @param next a later observation
     * @return whether it is of the same consumer on the same stream, so that the two can
     * be compared (a consumer or stream created again starts over)
     */
    boolean continuedBy(Observation next) {
        // A durable created since (the edge's first placement) starts where the absent
        // one
        // was: at the stream's first event, nothing delivered.
        boolean same = created.equals(next.created) || created.equals(NEVER_CREATED);
        return same && next.deliveries >= deliveries && next.last >= last && next.first >= first;
    }

}
