package io.varpulis.jetstream;

import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a node knows of its streams' sequences names what the servers lost (SPEC section
 * 21, issue 43): a stream whose last sequence went below one seen, the messages published
 * here and acknowledged then lost per subject, a consumer's acknowledgements past the
 * stream's end; and nothing when the stream only grew.
 */
class StreamSequencesTest {

    private static final String ROUTING = "VARPULIS_ROUTING";

    private static final String INTO_DETECT = "varpulis.cluster.pipeline.g.ingress.detect";

    private static final String INTO_ALERTS = "varpulis.cluster.pipeline.g.detect.alerts";

    @Test
    void aStreamThatOnlyGrewLostNothing() {
        StreamSequences sequences = new StreamSequences();
        for (long seq = 1; seq <= 10; seq++) {
            sequences.published(ROUTING, INTO_DETECT, seq);
        }
        assertThat(sequences.observed(ROUTING, sequences.highest(ROUTING), 25)).isEmpty();
        assertThat(sequences.highest(ROUTING)).as("raised to the stream's last sequence").isEqualTo(25);
    }

    @Test
    void aStreamThatWentBackNamesTheSequencesAndWhatThisNodePublishedPerSubject() {
        StreamSequences sequences = new StreamSequences();
        for (long seq = 1; seq <= 100; seq++) {
            sequences.published(ROUTING, seq % 2 == 0 ? INTO_DETECT : INTO_ALERTS, seq);
        }
        sequences.acknowledged(ROUTING, "route_detect", 90);
        sequences.acknowledged(ROUTING, "route_alerts", 30);

        List<JetStreamLoss> losses = sequences.observed(ROUTING, sequences.highest(ROUTING), 40);

        assertThat(losses).extracting(JetStreamLoss::kind)
            .containsExactly(JetStreamLoss.Kind.STREAM_WENT_BACK, JetStreamLoss.Kind.PUBLISHED_LOST,
                    JetStreamLoss.Kind.PUBLISHED_LOST, JetStreamLoss.Kind.ACKED_PAST_END);
        JetStreamLoss wentBack = losses.get(0);
        assertThat(wentBack.firstSequence()).isEqualTo(41);
        assertThat(wentBack.lastSequence()).isEqualTo(100);
        assertThat(wentBack.messages()).isEqualTo(60);
        assertThat(wentBack.detail()).contains("went back", "40", "100");
        assertThat(losses.subList(1, 3))
            .extracting(JetStreamLoss::name, JetStreamLoss::messages, JetStreamLoss::firstSequence,
                    JetStreamLoss::lastSequence)
            .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(INTO_DETECT, 30L, 42L, 100L),
                    org.assertj.core.groups.Tuple.tuple(INTO_ALERTS, 30L, 41L, 99L));
        assertThat(losses.get(3).name()).as("only the consumer that had acknowledged past the end")
            .isEqualTo("route_detect");
        assertThat(losses.get(3).lastSequence()).isEqualTo(90);

        assertThat(sequences.observed(ROUTING, sequences.highest(ROUTING), 40)).as("said once").isEmpty();
    }

    @Test
    void aPubAckTheRequestDidNotSeeIsNotALoss() {
        StreamSequences sequences = new StreamSequences();
        sequences.published(ROUTING, INTO_DETECT, 10);
        long before = sequences.highest(ROUTING);
        // Stored after the stream info was answered: the answer's last sequence is older.
        sequences.published(ROUTING, INTO_DETECT, 11);
        assertThat(sequences.observed(ROUTING, before, 10)).isEmpty();
        assertThat(sequences.highest(ROUTING)).isEqualTo(11);
    }

    @Test
    void aStreamGoneNamesEverythingThisNodePublishedAndKeepsItsHighestSequence() {
        StreamSequences sequences = new StreamSequences();
        for (long seq = 5; seq <= 7; seq++) {
            sequences.published(ROUTING, INTO_DETECT, seq);
        }
        sequences.acknowledged(ROUTING, "route_detect", 6);

        List<JetStreamLoss> losses = sequences.gone(ROUTING);

        assertThat(losses).singleElement().satisfies(loss -> {
            assertThat(loss.kind()).isEqualTo(JetStreamLoss.Kind.PUBLISHED_LOST);
            assertThat(loss.messages()).isEqualTo(3);
            assertThat(loss.detail()).startsWith("3 messages this node published on " + INTO_DETECT);
        });
        assertThat(sequences.highest(ROUTING)).as("the stream declared again starts after it").isEqualTo(7);
        assertThat(sequences.consumerGone(ROUTING, "route_detect")).isEqualTo(6);
        assertThat(sequences.consumerGone(ROUTING, "route_detect")).as("forgotten").isZero();
    }

    @Test
    void morePubAcksThanRememberedAreNamedAsAtLeast() {
        StreamSequences sequences = new StreamSequences();
        long published = StreamSequences.PUBLISHED_KEPT + 100;
        for (long seq = 1; seq <= published; seq++) {
            sequences.published(ROUTING, INTO_DETECT, seq);
        }
        JetStreamLoss lost = sequences.gone(ROUTING).get(0);
        assertThat(lost.messages()).isEqualTo(StreamSequences.PUBLISHED_KEPT);
        assertThat(lost.detail()).startsWith("at least ");
    }

    @Test
    void aPubAckBelowAnEarlierOneIsAHintToAskNow() {
        StreamSequences sequences = new StreamSequences();
        List<String> asked = new ArrayList<>();
        sequences.onBackwards(asked::add);
        sequences.published(ROUTING, INTO_DETECT, 300);
        sequences.published(ROUTING, INTO_DETECT, 301);
        assertThat(asked).isEmpty();
        sequences.published(ROUTING, INTO_DETECT, 1);
        assertThat(asked).containsExactly(ROUTING);
        assertThat(sequences.highest(ROUTING)).as("a hint, not a loss: the mark stays").isEqualTo(301);
    }

    @Test
    void aMessageAcknowledgedTwiceIsLostOnce() {
        StreamSequences sequences = new StreamSequences();
        sequences.published(ROUTING, INTO_DETECT, 5);
        // Sent again after an unanswered publish: the server answers with the first
        // copy's
        // sequence (a duplicate).
        sequences.published(ROUTING, INTO_DETECT, 5);
        sequences.published(ROUTING, INTO_DETECT, 6);

        assertThat(sequences.gone(ROUTING)).singleElement().satisfies(loss -> assertThat(loss.messages()).isEqualTo(2));
    }

    @Test
    void aStreamCreatedAgainByAnotherNodeNamesOnlyWhatTheLostOneHeld() {
        Ticking clock = new Ticking();
        StreamSequences sequences = new StreamSequences(clock);
        // The lost stream: sequences 1-370, acknowledged before the loss.
        for (long seq = 1; seq <= 370; seq++) {
            sequences.published(ROUTING, INTO_DETECT, seq);
            clock.tick();
        }
        // Another node, which had seen up to 288, created it again starting at 289;
        // this node's next publishes went there before its keeper noticed.
        Instant created = clock.instant();
        clock.tick();
        for (long seq = 289; seq <= 309; seq++) {
            sequences.published(ROUTING, INTO_DETECT, seq);
            clock.tick();
        }

        List<JetStreamLoss> losses = sequences.recreated(ROUTING, 289, created, 309);

        assertThat(losses).singleElement().satisfies(loss -> {
            assertThat(loss.kind()).isEqualTo(JetStreamLoss.Kind.PUBLISHED_LOST);
            assertThat(loss.messages()).as("not the 21 the new stream holds").isEqualTo(370);
            assertThat(loss.lastSequence()).isEqualTo(370);
        });
        assertThat(sequences.highest(ROUTING)).as("compared from the new stream on").isEqualTo(309);
        assertThat(sequences.observed(ROUTING, sequences.highest(ROUTING), 309)).isEmpty();
    }

    /** A clock that moves one millisecond at a time, when told. */
    private static final class Ticking extends Clock {

        private long millis = 1_700_000_000_000L;

        void tick() {
            millis++;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis);
        }

    }

}
