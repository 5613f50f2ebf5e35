package io.varpulis.container;

import io.nats.client.JetStreamApiException;
import io.nats.client.api.ApiResponse;
import io.nats.client.support.JsonParser;
import io.varpulis.container.Decision.Action;
import io.varpulis.container.Settlement.State;
import io.varpulis.transport.ParkReason;
import io.varpulis.transport.PublishException;
import org.junit.jupiter.api.Test;
import org.springframework.util.backoff.ExponentialBackOff;
import org.springframework.util.backoff.FixedBackOff;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one decision of what a delivery becomes (SPEC section 18), rule by rule, each test
 * named after the rule and the section it comes from. Attempts are out of max_deliver 5.
 */
class SettlementTest {

    private static final Duration NAK_DELAY = Duration.ofSeconds(2);

    private static final Settlement SETTLEMENT = new Settlement(NAK_DELAY);

    private static final RuntimeException BUG = new IllegalStateException("processor threw");

    private static final PublishException NO_RESPONDERS = new PublishException("events.x",
            "503 No Responders Available For Request", new IOException("503 No Responders"));

    private static final PublishException NO_PUBACK = new PublishException("events.x", "no PubAck within 5000 ms",
            new TimeoutException(), PublishException.Kind.UNAVAILABLE, null);

    private static final PublishException REFUSED = new PublishException("events.x", "maximum payload exceeded",
            new IllegalArgumentException("too large"));

    private static Decision decide(Outcome outcome, long attempt) {
        return SETTLEMENT.decide(outcome, attempt, 5, State.RUNNING);
    }

    @Test
    void section4_anAppliedDeliveryIsAcked_onItsLastDeliveryToo() {
        assertThat(decide(Outcome.applied(), 1).action()).isEqualTo(Action.ACK);
        assertThat(decide(Outcome.applied(3), 5).action()).isEqualTo(Action.ACK);
    }

    @Test
    void section4_aFailedApplyIsNakedWithTheNakDelay() {
        Decision decision = decide(Outcome.failed(BUG), 4);
        assertThat(decision.action()).isEqualTo(Action.NAK);
        assertThat(decision.delay()).isEqualTo(NAK_DELAY);
        assertThat(decision.cause()).isSameAs(BUG);
    }

    @Test
    void section18_eachNakWaitsItsBackOffsStepForThatAttempt_upToItsMaximum() {
        ExponentialBackOff doubling = new ExponentialBackOff(1000, 2.0);
        doubling.setMaxInterval(8000);
        Settlement exponential = new Settlement(doubling);
        long[] delays = new long[6];
        for (int attempt = 1; attempt <= 6; attempt++) {
            delays[attempt - 1] = exponential.decide(Outcome.failed(BUG), attempt, 10, State.RUNNING)
                .delay()
                .toMillis();
        }
        assertThat(delays).containsExactly(1000, 2000, 4000, 8000, 8000, 8000);
    }

    @Test
    void section18_aBackOffThatStopsParksTheFailure() {
        Settlement twoTries = new Settlement(new FixedBackOff(500, 2));
        assertThat(twoTries.decide(Outcome.failed(BUG), 2, 10, State.RUNNING).action()).isEqualTo(Action.NAK);
        Decision third = twoTries.decide(Outcome.failed(BUG), 3, 10, State.RUNNING);
        assertThat(third.action()).isEqualTo(Action.PARK);
        assertThat(third.reason()).isEqualTo(ParkReason.MAX_DELIVER);
    }

    @Test
    void section18_aSkipChosenByAnErrorHandlerIsAnAckWithoutApply_butAFencedOwnerHasNoEffect() {
        Outcome skipped = Outcome.skipped("duplicate", BUG);
        assertThat(decide(skipped, 1).action()).isEqualTo(Action.SKIP);
        assertThat(SETTLEMENT.decide(skipped, 1, 5, State.FENCED).action()).isEqualTo(Action.LEAVE);
    }

    @Test
    void section18_aRedeliveryOfAMessageStillAppliedHereIsNakedForAnotherInstance_andLeftOnItsLast() {
        Decision again = decide(Outcome.stillApplying(), 2);
        assertThat(again.action()).isEqualTo(Action.NAK);
        assertThat(again.delay()).isEqualTo(NAK_DELAY);
        assertThat(decide(Outcome.stillApplying(), 5).action())
            .as("the server gives it up, and its advisory parks it, while the first apply may still finish")
            .isEqualTo(Action.LEAVE);
    }

    @Test
    void section4_aFailureOnTheLastDeliveryIsParkedAsMaxDeliver() {
        Decision decision = decide(Outcome.failed(BUG), 5);
        assertThat(decision.action()).isEqualTo(Action.PARK);
        assertThat(decision.reason()).isEqualTo(ParkReason.MAX_DELIVER);
        assertThat(decision.cause()).isSameAs(BUG);
    }

    @Test
    void section4_aConsumerWithoutMaxDeliverNeverParksAFailure() {
        assertThat(SETTLEMENT.decide(Outcome.failed(BUG), 50, -1, State.RUNNING).action()).isEqualTo(Action.NAK);
    }

    @Test
    void sections4And11And13_poisonIsParkedOnTheDeliveryThatFoundIt() {
        for (ParkReason reason : new ParkReason[] { ParkReason.UNDECODABLE, ParkReason.UNPROCESSABLE,
                ParkReason.UNROUTABLE }) {
            Decision decision = decide(Outcome.poison(reason, BUG), 1);
            assertThat(decision.action()).as(reason.tag()).isEqualTo(Action.PARK);
            assertThat(decision.reason()).isEqualTo(reason);
        }
    }

    @Test
    void section9_aBrokerAwayIsWaitedOut_evenOnTheLastDelivery() {
        Outcome away = Outcome.brokerAway(NO_RESPONDERS, () -> CompletableFuture.completedFuture(Outcome.applied()));
        assertThat(decide(away, 1).action()).isEqualTo(Action.RETRY);
        assertThat(decide(away, 5).action()).as("no delivery is spent, so none can run out").isEqualTo(Action.RETRY);
    }

    @Test
    void section9_aFencedOwnerLeavesEverything_withoutAnyEffect() {
        assertThat(decide(Outcome.fenced(BUG), 1).action()).isEqualTo(Action.LEAVE);
        assertThat(decide(Outcome.fenced(BUG), 5).action()).as("not even a park on the last delivery")
            .isEqualTo(Action.LEAVE);
        for (Outcome outcome : new Outcome[] { Outcome.failed(BUG), Outcome.poison(ParkReason.UNDECODABLE, BUG),
                Outcome.stopped("moved") }) {
            assertThat(SETTLEMENT.decide(outcome, 5, 5, State.FENCED).action()).as("a fenced container: " + outcome)
                .isEqualTo(Action.LEAVE);
        }
    }

    @Test
    void section9_aStoppedOwnerLeavesWhatItHolds_butParksALastDeliveryTheServerWouldNeverRedeliver() {
        assertThat(decide(Outcome.stopped("undeployed"), 4).action()).isEqualTo(Action.LEAVE);
        Decision last = decide(Outcome.stopped("undeployed"), 5);
        assertThat(last.action()).isEqualTo(Action.PARK);
        assertThat(last.reason()).isEqualTo(ParkReason.MAX_DELIVER);
        assertThat(SETTLEMENT.decide(Outcome.failed(BUG), 2, 5, State.STOPPED).action())
            .as("a failure after the stop is not the event's: no nak")
            .isEqualTo(Action.LEAVE);
        assertThat(SETTLEMENT.decide(Outcome.brokerAway(NO_PUBACK, null), 2, 5, State.STOPPED).action())
            .as("a stopped owner gives its broker waits up")
            .isEqualTo(Action.LEAVE);
    }

    @Test
    void section4_aParkTheDlqRefusedIsNaked_andOnTheLastDeliveryLeftToTheServersAdvisory() {
        Outcome refused = new Outcome.ParkFailed(ParkReason.MAX_DELIVER, BUG, REFUSED);
        assertThat(decide(refused, 2).action()).isEqualTo(Action.NAK);
        assertThat(decide(refused, 5).action()).as("the server then gives it up, and its advisory parks it")
            .isEqualTo(Action.NAK);
    }

    @Test
    void section9_aParkWhileTheDlqIsUnavailableIsTriedAgain_noDeliverySpent() {
        assertThat(decide(new Outcome.ParkFailed(ParkReason.UNDECODABLE, BUG, NO_PUBACK), 1).action())
            .isEqualTo(Action.RETRY);
        assertThat(decide(new Outcome.ParkFailed(ParkReason.MAX_DELIVER, BUG, NO_RESPONDERS), 5).action())
            .isEqualTo(Action.RETRY);
    }

    @Test
    void section9_aMessageTheServerGaveUpIsParked_whateverTheContainersState() {
        Outcome givenUp = Outcome.poison(ParkReason.SERVER_GAVE_UP, BUG);
        for (State state : State.values()) {
            Decision decision = SETTLEMENT.decide(givenUp, 5, 5, state);
            assertThat(decision.action()).as(state.name()).isEqualTo(Action.PARK);
            assertThat(decision.reason()).isEqualTo(ParkReason.SERVER_GAVE_UP);
        }
    }

    @Test
    void section9_aMessageTheServerGaveUpWhoseParkTheDlqRefusesIsStranded_andWaitedForWhileTheDlqIsAway() {
        assertThat(decide(new Outcome.ParkFailed(ParkReason.SERVER_GAVE_UP, BUG, REFUSED), 5).action())
            .isEqualTo(Action.STRANDED);
        assertThat(SETTLEMENT
            .decide(new Outcome.ParkFailed(ParkReason.SERVER_GAVE_UP, BUG, NO_PUBACK), 5, 5, State.STOPPED)
            .action()).isEqualTo(Action.RETRY);
    }

    @Test
    void section9_anElectionTimeApiErrorIsTheBrokerAway_anyOtherApiErrorARefusal() {
        PublishException electing = new PublishException("events.x", "duplicate message id is in process",
                apiError(10158));
        PublishException noStream = new PublishException("events.x", "no stream matches subject", apiError(10060));
        assertThat(decide(new Outcome.ParkFailed(ParkReason.MAX_DELIVER, BUG, electing), 5).action())
            .isEqualTo(Action.RETRY);
        assertThat(decide(new Outcome.ParkFailed(ParkReason.MAX_DELIVER, BUG, noStream), 3).action())
            .isEqualTo(Action.NAK);
    }

    @Test
    void aParkFailureThatIsNotAPublishFailureIsARefusal_neverAnEndlessWait() {
        assertThat(decide(new Outcome.ParkFailed(ParkReason.UNDECODABLE, BUG,
                new IllegalStateException("cannot write a death envelope")), 1)
            .action()).isEqualTo(Action.NAK);
    }

    /**
     * An API error as the server sends it, {@code {"error": {"code": 400, "err_code": N,
     * ...}}}.
     */
    private static JetStreamApiException apiError(int code) {
        return new JetStreamApiException(new ApiResponse<Object>(JsonParser.parseUnchecked("{\"error\": {\"code\": "
                + "400, \"err_code\": " + code + ", \"description\": \"api error " + code + "\"}}")) {
        });
    }

}
