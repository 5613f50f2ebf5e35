package io.varpulis.jetstream.eviction;

import java.util.Optional;

/**
 * The arithmetic of evictions between two observations: pure, so that each rule is tested
 * alone. docs/RELIABILITY.md ("Every exit counted") says why each count is exact or a
 * bound.
 * <p>
 * A durable consumer's events leave its stream applied (acked), or evicted by a limit
 * (max_age, max_bytes; a purge by hand alike). The server keeps a consumer's
 * {@code num_pending} (events matching its filter after its last delivery) exact through
 * both: one is taken off for every first delivery and for every pending event the stream
 * drops. So between two observations, undelivered events dropped =
 * {@code pending before - pending after + arrivals - deliveries}, where arrivals are the
 * events stored for it after the first observation's last sequence (counted by the
 * caller) and deliveries the growth of {@code delivered.consumer_seq}. Deliveries count
 * redeliveries too, so with deliveries the count is a lower bound; without (the
 * consumer's pipeline placed nowhere, stopped, or paused) it is exact, unless the stream
 * dropped every event the first observation knew of, some arrivals with them.
 * <p>
 * Delivered events not acked when the stream drops them are in a process's hands: applied
 * (its late ack is ignored, the event was applied), parked, or nak'ed and then gone. They
 * are counted only where nothing runs the consumer (its pipeline placed nowhere) and
 * nobody consumed between the observations (no delivery, no pull request waiting): the
 * events a killed worker held, which nobody will ever apply.
 */
final class Evictions {

    private Evictions() {
    }

    /**
     * @param before the earlier observation
     * @param after the later one
     * @return whether the stream's first sequence passed the consumer's position of
     * {@code before} (undelivered events may have been dropped) while events arrived, so
     * that the caller must count the arrivals
     */
    static boolean needsArrivals(Observation before, Observation after) {
        return before.continuedBy(after) && headPassed(before, after) && after.last() > before.last();
    }

    /**
     * @param before the earlier observation
     * @param after the later one
     * @param arrivals events matching the consumer's filter with a sequence after
     * {@code before.last()}, counted before {@code after}'s consumer info was asked (0
     * when {@link #needsArrivals} is false)
     * @param runs whether a process runs the consumer now, and may hold its deliveries
     * @return the events dropped unconsumed between them, if any
     */
    static Optional<Count> ofConsumer(Observation before, Observation after, long arrivals, boolean runs) {
        if (!before.continuedBy(after)) {
            return Optional.empty();
        }
        long deliveries = after.deliveries() - before.deliveries();
        long undelivered = headPassed(before, after)
                ? Math.max(0, before.pending() - after.pending() + arrivals - deliveries) : 0;
        boolean nobodyConsumes = !runs && deliveries == 0 && before.waiting() == 0 && after.waiting() == 0;
        long held = nobodyConsumes && after.first() > before.ackFloor() + 1
                ? Math.max(0, Math.min(before.ackPending() - after.ackPending(), after.first() - 1 - before.ackFloor()))
                : 0;
        long events = undelivered + held;
        if (events == 0) {
            return Optional.empty();
        }
        boolean exact = deliveries == 0 && after.first() <= before.last() + 1;
        long from = held > 0 ? before.ackFloor() + 1 : Math.max(before.delivered() + 1, before.first());
        long to = after.first() - 1;
        return Optional
            .of(new Count(events, exact ? Evicted.Bound.EXACT : Evicted.Bound.AT_LEAST, Math.min(from, to), to));
    }

    /**
     * A stream nothing consumes drops its oldest messages at max_msgs (discard Old): as
     * many as were stored beyond it. Messages removed by hand meanwhile (the DLQ
     * console's replay, delete and purge) are told apart by that bound: what was removed
     * beyond the overflow was removed by hand. When both happened between two
     * observations, the count is at most the one given.
     * @param before the earlier observation
     * @param after the later one
     * @return the messages dropped at max_msgs between them, if any
     */
    static Optional<Count> ofStream(StreamObservation before, StreamObservation after) {
        if (!before.continuedBy(after) || after.maxMessages() <= 0) {
            return Optional.empty();
        }
        long stored = after.last() - before.last();
        long removed = stored - (after.messages() - before.messages());
        long overflow = before.messages() + stored - after.maxMessages();
        long events = Math.min(removed, overflow);
        if (events <= 0) {
            return Optional.empty();
        }
        // An empty stream's first sequence is 0 (new) or the next one to come (purged).
        long from = before.messages() == 0 ? before.last() + 1 : before.first();
        return Optional.of(new Count(events, removed == overflow ? Evicted.Bound.EXACT : Evicted.Bound.AT_MOST, from,
                Math.max(from, after.first() - 1)));
    }

    private static boolean headPassed(Observation before, Observation after) {
        return after.first() > before.delivered() + 1;
    }

    /**
     * @param events how many
     * @param bound how exact
     * @param from the first stream sequence they may have had
     * @param to the last
     */
    record Count(long events, Evicted.Bound bound, long from, long to) {
    }

}
