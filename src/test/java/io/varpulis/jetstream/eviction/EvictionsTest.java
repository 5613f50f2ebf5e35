package io.varpulis.jetstream.eviction;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The arithmetic of evictions between two observations (issue 43, SPEC section 21): what
 * a consumer lost, exactly or as a bound, and what a stream nothing consumes discarded at
 * max_msgs.
 */
class EvictionsTest {

    private static final String CREATED = "2026-12-05T08:00Z";

    /** delivered, deliveries, ackFloor, pending, ackPending, waiting, first, last. */
    private static Observation at(long delivered, long deliveries, long ackFloor, long pending, long ackPending,
            long waiting, long first, long last) {
        return new Observation(CREATED, delivered, deliveries, ackFloor, pending, ackPending, waiting, first, last);
    }

    @Test
    void aConsumerNobodyConsumes_losesExactlyItsPendingEventsTheHeadPassed_arrivalsIncluded() {
        // Sequences 1-100 are its 40 events among others'; the stream drops 1-60 (25 of
        // them) while 10 more arrive at 101-120.
        Observation before = at(0, 0, 0, 40, 0, 0, 1, 100);
        Observation after = at(0, 0, 0, 25, 0, 0, 61, 120);

        assertThat(Evictions.needsArrivals(before, after)).isTrue();
        assertThat(Evictions.ofConsumer(before, after, 10, false))
            .contains(new Evictions.Count(25, Evicted.Bound.EXACT, 1, 60));
    }

    @Test
    void aConsumerAheadOfTheHead_losesNothing_andNeedsNoCount() {
        // It delivered up to 500 and acked up to 480; the stream drops 1-300, all acked.
        Observation before = at(500, 520, 480, 0, 20, 1, 1, 500);
        Observation after = at(700, 730, 690, 3, 10, 1, 301, 703);

        assertThat(Evictions.needsArrivals(before, after)).isFalse();
        assertThat(Evictions.ofConsumer(before, after, 0, false)).isEmpty();
    }

    @Test
    void aConsumerDeliveringWhileTheHeadOvertookIt_isCountedAsALowerBound() {
        // Delivered up to 100; the head moved to 161; 30 arrived; 20 deliveries (some may
        // have been redeliveries) and 25 still pending.
        Observation before = at(100, 100, 90, 50, 10, 1, 50, 200);
        Observation after = at(180, 120, 170, 25, 10, 1, 161, 260);

        assertThat(Evictions.ofConsumer(before, after, 30, false))
            .contains(new Evictions.Count(35, Evicted.Bound.AT_LEAST, 101, 160));
    }

    @Test
    void aHeadThatPassedEverythingTheFirstObservationKnew_makesTheCountALowerBound() {
        Observation before = at(0, 0, 0, 40, 0, 0, 1, 100);
        Observation after = at(0, 0, 0, 5, 0, 0, 131, 140);

        assertThat(Evictions.ofConsumer(before, after, 5, false)).get()
            .extracting(Evictions.Count::events, Evictions.Count::bound)
            .containsExactly(40L, Evicted.Bound.AT_LEAST);
    }

    @Test
    void eventsAKilledWorkerHeld_areCountedOnceTheStreamDropsThem_whenNobodyConsumes() {
        // 8 delivered and never acked (ack floor 10, delivered 18); nobody pulls; the
        // stream drops 1-15: 5 of the held ones are gone (ack pending 8 -> 3).
        Observation before = at(18, 18, 10, 0, 8, 0, 1, 18);
        Observation after = at(18, 18, 10, 0, 3, 0, 16, 18);

        assertThat(Evictions.ofConsumer(before, after, 0, false))
            .contains(new Evictions.Count(5, Evicted.Bound.EXACT, 11, 15));
    }

    @Test
    void eventsHeldWhereAProcessRunsTheConsumer_areItsOwn_andNotCounted() {
        // Its pipeline is placed: the worker may hold them without pulling (its queue
        // full), and applies or parks them.
        Observation before = at(18, 18, 10, 0, 8, 0, 1, 18);
        Observation after = at(18, 18, 10, 0, 3, 0, 16, 18);

        assertThat(Evictions.ofConsumer(before, after, 0, true)).isEmpty();
    }

    @Test
    void eventsHeldByAConsumerThatIsPulling_areItsOwn_andNotCounted() {
        // A worker holds them (a pull request waits): its late ack applies them, or it
        // parks them.
        Observation before = at(18, 18, 10, 0, 8, 1, 1, 18);
        Observation after = at(18, 18, 10, 0, 3, 1, 16, 18);

        assertThat(Evictions.ofConsumer(before, after, 0, false)).isEmpty();
    }

    @Test
    void aConsumerCreatedAgain_orAStreamCreatedAgain_startsOver() {
        Observation before = at(0, 0, 0, 40, 0, 0, 1, 100);

        assertThat(Evictions.ofConsumer(before, new Observation("2026-12-05T09:00Z", 0, 0, 0, 0, 0, 0, 61, 120), 10,
                false))
            .isEmpty();
        assertThat(Evictions.ofConsumer(before, at(0, 0, 0, 0, 0, 0, 1, 3), 0, false)).isEmpty();
    }

    @Test
    void aDurableCreatedWhereNoneWas_goesOnFromTheAbsentOnesCount() {
        // 12 events on the edge's subject while its pipeline ran nowhere; the stream
        // drops
        // 1-40 (7 of them), a worker creates the durable and is given 3 meanwhile.
        Observation absent = new Observation(Observation.NEVER_CREATED, 0, 0, 0, 12, 0, 0, 1, 60);
        Observation created = at(45, 3, 0, 2, 3, 1, 41, 60);

        assertThat(Evictions.ofConsumer(absent, created, 0, false))
            .contains(new Evictions.Count(7, Evicted.Bound.AT_LEAST, 1, 40));
        assertThat(Evictions.ofConsumer(created, new Observation(Observation.NEVER_CREATED, 0, 0, 0, 2, 0, 0, 41, 60),
                0, false))
            .as("a durable deleted: another consumer, not compared")
            .isEmpty();
    }

    @Test
    void aStreamAtItsMaxMsgs_discardsExactlyWhatWasStoredBeyondIt() {
        StreamObservation before = new StreamObservation(CREATED, 1, 95, 95, 100);
        StreamObservation after = new StreamObservation(CREATED, 13, 112, 100, 100);

        assertThat(Evictions.ofStream(before, after)).contains(new Evictions.Count(12, Evicted.Bound.EXACT, 1, 12));
    }

    @Test
    void aStreamEmptyBefore_namesItsDiscardsFromItsFirstMessage() {
        // A new stream says first 0; 8 stored at max_msgs 5.
        assertThat(Evictions.ofStream(new StreamObservation(CREATED, 0, 0, 0, 5),
                new StreamObservation(CREATED, 4, 8, 5, 5)))
            .contains(new Evictions.Count(3, Evicted.Bound.EXACT, 1, 3));
    }

    @Test
    void parkedEventsRemovedByHandBelowTheLimit_areNotDiscards() {
        // The console replayed or purged 40 of 80; 10 more parked: 90 stored at most.
        StreamObservation before = new StreamObservation(CREATED, 1, 80, 80, 100);
        StreamObservation after = new StreamObservation(CREATED, 41, 90, 50, 100);

        assertThat(Evictions.ofStream(before, after)).isEmpty();
    }

    @Test
    void removalsByHandAtTheLimit_makeTheCountAnUpperBound() {
        // 20 stored beyond the limit (15 over), 30 removed in all: some by hand.
        StreamObservation before = new StreamObservation(CREATED, 1, 95, 95, 100);
        StreamObservation after = new StreamObservation(CREATED, 31, 115, 85, 100);

        assertThat(Evictions.ofStream(before, after)).get()
            .extracting(Evictions.Count::events, Evictions.Count::bound)
            .containsExactly(15L, Evicted.Bound.AT_MOST);
    }

    @Test
    void aStreamWithoutMaxMsgs_orCreatedAgain_discardsNothingCounted() {
        assertThat(Evictions.ofStream(new StreamObservation(CREATED, 1, 95, 95, -1),
                new StreamObservation(CREATED, 50, 200, 151, -1)))
            .isEmpty();
        assertThat(Evictions.ofStream(new StreamObservation(CREATED, 1, 95, 95, 100),
                new StreamObservation("2026-12-05T09:00Z", 1, 3, 3, 100)))
            .isEmpty();
    }

}
