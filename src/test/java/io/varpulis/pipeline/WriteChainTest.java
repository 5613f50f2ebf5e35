package io.varpulis.pipeline;

import io.nats.client.JetStreamApiException;
import io.nats.client.api.ApiResponse;
import io.nats.client.support.JsonParser;
import io.varpulis.pipeline.StateReads.Held;
import io.varpulis.pipeline.ChainRepair.Action;
import io.varpulis.pipeline.StateWrite.Send;
import io.varpulis.transport.PublishException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The write chain's rules (issue 41, SPEC section 20), without a server: what goes on the
 * wire, what a refusal, a lost PubAck and an "in process" answer make of it, and what a
 * look-up of the leader decides. Each test names its rule.
 */
class WriteChainTest {

    private static final String WRITER = "7-abc";

    private static final long FENCE_SEQUENCE = 10;

    private final WriteChain chain = new WriteChain(WRITER, "b", FENCE_SEQUENCE, Duration.ofMillis(200).toNanos(),
            Chaining.MESSAGE_ID);

    @Test
    void writesAreChainedByMessageId_theFirstOnTheFence() {
        chain.add(batch("a", "b"));

        List<Send> sends = chain.toSend();

        assertThat(sends).extracting(s -> s.message().messageId()).containsExactly("7-abc:1", "7-abc:2");
        assertThat(sends).extracting(s -> s.message().expectedLastMessageId()).containsExactly("7-abc:0", "7-abc:1");
        assertThat(sends).allSatisfy(s -> assertThat(s.message().expectedLastSequence()).isNull());
        assertThat(sends.get(0).message().subject()).isEqualTo("$KV.b.a");
    }

    @Test
    void noMoreThanTheWindowIsOnTheWire_theRestGoesAsWritesAreConfirmed() {
        chain.add(batch(WriteChain.WINDOW + 10));

        List<Send> first = chain.toSend();
        assertThat(first).hasSize(WriteChain.WINDOW);
        assertThat(chain.toSend()).isEmpty();

        chain.stored(first.get(9).write(), "7-abc:10", FENCE_SEQUENCE + 10);
        List<Send> more = chain.toSend();
        assertThat(more).hasSize(10);
        assertThat(more.get(0).message().expectedLastMessageId())
            .isEqualTo(first.get(WriteChain.WINDOW - 1).message().messageId());
    }

    @Test
    void aStoredWriteConfirmsEveryWriteBeforeIt_whichItExpected() {
        chain.add(batch(3));
        List<Send> sends = chain.toSend();

        ChainRepair repair = chain.stored(sends.get(2).write(), "7-abc:3", FENCE_SEQUENCE + 3);

        assertThat(repair.confirmed()).extracting(w -> w.number).containsExactly(1L, 2L, 3L);
        assertThat(chain.unconfirmed()).isZero();
    }

    @Test
    void aPubAckLateWhileTheLeaderStoresIsNeitherRepairedNorSentAgain() {
        chain.add(batch(3));
        List<Send> sends = chain.toSend();
        chain.stored(sends.get(0).write(), "7-abc:1", FENCE_SEQUENCE + 1);

        assertThat(chain.failed(sends.get(1).write(), 1, timeout()).action()).isEqualTo(Action.SEND);
        chain.add(batch("more"));
        assertThat(chain.toSend()).as("sending goes on").hasSize(1);
        assertThat(chain.stalled()).as("the leader stored a write just now").isFalse();

        ChainRepair looked = chain.lookedUp(new Held(FENCE_SEQUENCE + 1, "7-abc:1", false, null));
        assertThat(looked.action()).isEqualTo(Action.SEND);
        assertThat(chain.toSend()).as("nothing sent again").isEmpty();
    }

    @Test
    void aRefusalStopsSending_theLookUpConfirmsWhatLanded_andOnlyTheMissingWritesGoAgainOnce() {
        chain.add(batch(4));
        List<Send> sends = chain.toSend();
        // A leader change dropped write 2; write 3 found write 1 last and was refused.
        chain.stored(sends.get(0).write(), "7-abc:1", FENCE_SEQUENCE + 1);
        assertThat(chain.failed(sends.get(2).write(), 1, refused(Chaining.WRONG_LAST_MESSAGE_ID)).action())
            .isEqualTo(Action.WAIT);
        chain.add(batch("later"));
        assertThat(chain.toSend()).as("nothing is sent while the chain is broken").isEmpty();

        ChainRepair repair = chain.lookedUp(new Held(FENCE_SEQUENCE + 1, "7-abc:1", false, null));

        assertThat(repair.action()).isEqualTo(Action.SEND);
        assertThat(repair.why()).isEqualTo(WriteChain.REPAIRED);
        List<Send> first = chain.toSend();
        assertThat(first).as("the first alone, with an id of its own, anchored on what the leader holds")
            .extracting(s -> s.message().messageId())
            .containsExactly("7-abc:2.2");
        assertThat(first.get(0).message().expectedLastSequence()).isEqualTo(FENCE_SEQUENCE + 1);
        assertThat(first.get(0).message().expectedLastMessageId()).isNull();
        assertThat(chain.toSend()).as("the others wait until it is stored").isEmpty();
        chain.stored(first.get(0).write(), "7-abc:2.2", FENCE_SEQUENCE + 2);
        List<Send> again = chain.toSend();
        assertThat(again).extracting(s -> s.message().messageId()).containsExactly("7-abc:3.2", "7-abc:4.2", "7-abc:5");
        assertThat(again).extracting(Send::copy).containsExactly(2, 2, 1);
        assertThat(again.get(0).message().expectedLastMessageId()).isEqualTo("7-abc:2.2");
        assertThat(chain.failed(sends.get(1).write(), 1, timeout()).action())
            .as("an answer to the first copy changes nothing")
            .isEqualTo(Action.SEND);
    }

    @Test
    void writesTheLeaderStoredAfterAllAreConfirmedByTheLookUp_notSentAgain() {
        chain.add(batch(3));
        List<Send> sends = chain.toSend();
        chain.failed(sends.get(2).write(), 1, refused(Chaining.WRONG_LAST_MESSAGE_ID));

        ChainRepair repair = chain.lookedUp(new Held(FENCE_SEQUENCE + 2, "7-abc:2", false, null));

        assertThat(repair.confirmed()).extracting(w -> w.number).containsExactly(1L, 2L);
        assertThat(chain.toSend()).extracting(s -> s.message().messageId()).containsExactly("7-abc:3.2");
    }

    @Test
    void anInProcessAnswerIsNoRefusal_andTheCopyThatLandedIsRecognisedByAnyOfItsIds() {
        chain.add(batch(2));
        List<Send> sends = chain.toSend();
        chain.failed(sends.get(1).write(), 1, refused(Chaining.WRONG_LAST_MESSAGE_ID));
        chain.lookedUp(new Held(FENCE_SEQUENCE, "7-abc:0", false, null));
        List<Send> again = chain.toSend();
        assertThat(chain.failed(again.get(0).write(), 2, inProcess()).action()).as("it may land")
            .isEqualTo(Action.SEND);

        ChainRepair landed = chain.lookedUp(new Held(FENCE_SEQUENCE + 2, "7-abc:2.2", false, null));

        assertThat(landed.confirmed()).extracting(w -> w.number).containsExactly(1L, 2L);
        chain.add(batch("next"));
        assertThat(chain.toSend().get(0).message().expectedLastMessageId()).isEqualTo("7-abc:2.2");
    }

    @Test
    void writesOnTheWireWhileTheLeaderStoresNoneForLostAfterAreLookedUpAndSentAgain() throws Exception {
        chain.add(batch(2));
        chain.toSend();
        assertThat(chain.stalled()).isFalse();
        await("a leader that stepped down never answers what it dropped").atMost(Duration.ofSeconds(2))
            .until(chain::stalled);

        ChainRepair repair = chain.lookedUp(new Held(FENCE_SEQUENCE, "7-abc:0", false, null));

        assertThat(repair.why()).isEqualTo(WriteChain.REPAIRED);
        assertThat(chain.toSend()).extracting(Send::copy).containsExactly(2);
    }

    @Test
    void aFirstWriteRefusedAfterARepairIsLookedUpAndTriedAgain_theWritesAfterItNeverSentMeanwhile() {
        chain.add(batch(3));
        List<Send> sends = chain.toSend();
        chain.failed(sends.get(1).write(), 1, refused(Chaining.WRONG_LAST_MESSAGE_ID));
        chain.lookedUp(new Held(FENCE_SEQUENCE, "7-abc:0", false, null));
        // A slow leader still applies writes it accepted before: its next sequence is
        // ahead of what it has applied.
        assertThat(chain.failed(chain.toSend().get(0).write(), 2, refused(Chaining.WRONG_LAST_SEQUENCE)).action())
            .isEqualTo(Action.WAIT);
        assertThat(chain.toSend()).isEmpty();

        // Those were this writer's first copies: found stored, not sent a third time.
        ChainRepair repair = chain.lookedUp(new Held(FENCE_SEQUENCE + 2, "7-abc:2", false, null));

        assertThat(repair.confirmed()).extracting(w -> w.number).containsExactly(1L, 2L);
        assertThat(chain.toSend()).extracting(s -> s.message().messageId()).containsExactly("7-abc:3.2");
    }

    @Test
    void aMessageAnotherWriterWroteFencesTheChain() {
        chain.add(batch(1));
        chain.failed(chain.toSend().get(0).write(), 1, refused(Chaining.WRONG_LAST_MESSAGE_ID));

        assertThat(chain.lookedUp(new Held(FENCE_SEQUENCE + 1, "8-def:0", false, null)).action())
            .isEqualTo(Action.FENCED);
        assertThat(chain.lookedUp(new Held(FENCE_SEQUENCE + 1, null, false, null)).action())
            .as("a message without an id (nats kv put)")
            .isEqualTo(Action.FENCED);
        assertThat(chain.lookedUp(new Held(FENCE_SEQUENCE + 1, null, true, "8-def")).action())
            .as("gone, and the fence names another writer")
            .isEqualTo(Action.FENCED);
    }

    @Test
    void aMessageGoneWhileTheFenceIsThisWritersCountsAsThisWritersOwn() {
        chain.add(batch(3));
        chain.failed(chain.toSend().get(2).write(), 1, refused(Chaining.WRONG_LAST_MESSAGE_ID));

        ChainRepair repair = chain.lookedUp(new Held(FENCE_SEQUENCE + 2, null, true, WRITER));

        assertThat(repair.confirmed()).extracting(w -> w.number).containsExactly(1L, 2L);
    }

    @Test
    void aWriteTheBucketRefusesForItselfTwiceIsDroppedWithEveryWriteAfterIt() {
        chain.add(batch(2));
        chain.failed(chain.toSend().get(0).write(), 1, refused(10054));
        chain.lookedUp(new Held(FENCE_SEQUENCE, "7-abc:0", false, null));
        List<Send> again = chain.toSend();
        chain.failed(again.get(0).write(), 2, refused(10054));

        ChainRepair repair = chain.lookedUp(new Held(FENCE_SEQUENCE, "7-abc:0", false, null));

        assertThat(repair.action()).isEqualTo(Action.DROPPED);
        assertThat(repair.dropped()).extracting(w -> w.number).containsExactly(1L, 2L);
        chain.add(batch("next"));
        assertThat(chain.toSend().get(0).message().expectedLastMessageId()).isEqualTo("7-abc:0");
    }

    @Test
    void aDroppedWritesLateCopyFoundStoredEndsTheChain() {
        chain.add(batch(1));
        chain.failed(chain.toSend().get(0).write(), 1, refused(10054));
        chain.lookedUp(new Held(FENCE_SEQUENCE, "7-abc:0", false, null));
        chain.failed(chain.toSend().get(0).write(), 2, refused(10054));
        assertThat(chain.lookedUp(new Held(FENCE_SEQUENCE, "7-abc:0", false, null)).action()).isEqualTo(Action.DROPPED);
        chain.add(batch("next"));
        List<Send> next = chain.toSend();
        assertThat(next).as("not one at a time after a drop").hasSize(1);
        chain.failed(next.get(0).write(), 1, refused(Chaining.WRONG_LAST_SEQUENCE));

        ChainRepair repair = chain.lookedUp(new Held(FENCE_SEQUENCE + 1, "7-abc:1.2", false, null));

        assertThat(repair.action()).isEqualTo(Action.FENCED);
        assertThat(repair.why()).contains("holds write 1, which this writer had dropped");
    }

    @Test
    void fromNatsServer214OneWriteIsOnTheWireAtATime_expectingTheLastConfirmedSequence() {
        WriteChain bySequence = chained(Chaining.SEQUENCE);
        bySequence.add(batch("a", "b"));

        List<Send> first = bySequence.toSend();

        assertThat(first).hasSize(1);
        assertThat(first.get(0).message().expectedLastSequence()).isEqualTo(FENCE_SEQUENCE);
        assertThat(first.get(0).message().expectedLastMessageId()).as("a replica checks it on apply").isNull();
        assertThat(bySequence.toSend()).as("a second would have to guess its sequence").isEmpty();
        bySequence.stored(first.get(0).write(), "7-abc:1", FENCE_SEQUENCE + 1);
        assertThat(bySequence.toSend()).extracting(s -> s.message().expectedLastSequence())
            .containsExactly(FENCE_SEQUENCE + 1);
    }

    @Test
    void withAtomicBatchesWholeAppliesGoAsOneBatch_onlyItsFirstWriteExpectingTheLastConfirmedSequence() {
        WriteChain atomic = chained(Chaining.ATOMIC_BATCH);
        atomic.add(batch("a", "b"));
        atomic.add(batch("c"));

        List<Send> first = atomic.toSend();

        assertThat(first).extracting(s -> s.message().messageId()).containsExactly("7-abc:1", "7-abc:2", "7-abc:3");
        assertThat(first).extracting(s -> s.message().expectedLastSequence())
            .containsExactly(FENCE_SEQUENCE, null, null);
        assertThat(first).allSatisfy(s -> assertThat(s.message().expectedLastMessageId()).isNull());
        assertThat(atomic.toSend()).as("one batch on the wire at a time").isEmpty();
        ChainRepair stored = atomic.stored(first.get(2).write(), "7-abc:3", FENCE_SEQUENCE + 3);
        assertThat(stored.confirmed()).hasSize(3);
        assertThat(atomic.confirmedSequence()).isEqualTo(FENCE_SEQUENCE + 3);
    }

    @Test
    void anAtomicBatchNeverEndsInsideAnApply_andHoldsFewerThanTheWindowBeforeItsLastApply() {
        WriteChain atomic = chained(Chaining.ATOMIC_BATCH);
        atomic.add(batch(WriteChain.WINDOW - 1));
        atomic.add(batch(5));
        atomic.add(batch(1));

        assertThat(atomic.toSend()).as("63 writes, then the whole next apply").hasSize(WriteChain.WINDOW + 4);
    }

    @Test
    void anAtomicBatchRefusedForItselfTwiceIsDroppedWhole_aFenceRefusalLooksTheLeaderUp() {
        WriteChain atomic = chained(Chaining.ATOMIC_BATCH);
        atomic.add(batch("a", "b"));
        List<Send> first = atomic.toSend();
        Send commit = first.get(1);

        assertThat(atomic.failed(commit.write(), 1, refused(Chaining.WRONG_LAST_SEQUENCE)).action())
            .isEqualTo(Action.WAIT);
        ChainRepair fenced = atomic.lookedUp(new Held(FENCE_SEQUENCE + 1, "8-def:0", false, null));
        assertThat(fenced.action()).as("nothing of the batch stored: the other writer's fence is last")
            .isEqualTo(Action.FENCED);

        WriteChain limited = chained(Chaining.ATOMIC_BATCH);
        limited.add(batch("a", "b"));
        for (int attempt = 1; attempt <= 2; attempt++) {
            List<Send> sends = limited.toSend();
            assertThat(sends).hasSize(2);
            assertThat(limited.failed(sends.get(1).write(), attempt, refused(10199)).action()).isEqualTo(Action.WAIT);
            ChainRepair repair = limited.lookedUp(new Held(FENCE_SEQUENCE, "7-abc:0", false, null));
            if (attempt == 2) {
                assertThat(repair.action()).isEqualTo(Action.DROPPED);
                assertThat(repair.dropped()).hasSize(2);
            }
        }
    }

    @Test
    void theFlushFutureIsTheNewestWrites() {
        assertThat(chain.lastWritten()).isNull();
        List<StateWrite> added = chain.add(batch(2));
        CompletableFuture<Void> last = chain.lastWritten();
        assertThat(last).isSameAs(added.get(1).confirmed);
    }

    private static WriteChain chained(Chaining chaining) {
        return new WriteChain(WRITER, "b", FENCE_SEQUENCE, Duration.ofMillis(200).toNanos(), chaining);
    }

    private static Map<String, byte[]> batch(String... keys) {
        Map<String, byte[]> batch = new LinkedHashMap<>();
        for (String key : keys) {
            batch.put(key, key.getBytes());
        }
        return batch;
    }

    private static Map<String, byte[]> batch(int count) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            keys.add("k" + i);
        }
        return batch(keys.toArray(String[]::new));
    }

    private static Throwable timeout() {
        return new PublishException("$KV.b.k", "no PubAck within 200 ms", new TimeoutException(),
                PublishException.Kind.UNAVAILABLE, new CompletableFuture<>());
    }

    private static Throwable inProcess() {
        return new PublishException("$KV.b.k", "in process", apiError(10158));
    }

    private static Throwable refused(int code) {
        return new PublishException("$KV.b.k", "refused", apiError(code));
    }

    private static JetStreamApiException apiError(int code) {
        return new JetStreamApiException(new ApiResponse<Object>(JsonParser
            .parseUnchecked("{\"error\": {\"code\": 400, \"err_code\": " + code + ", \"description\": \"refused\"}}")) {
        });
    }

}
