package io.varpulis.pipeline;

import io.nats.client.JetStreamApiException;
import io.nats.client.api.ApiResponse;
import io.nats.client.support.JsonParser;
import io.varpulis.jetstream.JetStreamLosses;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.KeyValueState.StateUnavailableException;
import io.varpulis.pipeline.StateReads.Held;
import io.varpulis.test.TestThreads;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.DeliveryHandler;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishException;
import io.varpulis.transport.PublishReceipt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Issue 41 (SPEC section 20), what a power loss and a slow disk did to a state's writer.
 * Writes answered "duplicate message id is in process" (10158) with no leader to ask: the
 * writer waits without sending them again, says at WARN after the bound what it waits
 * for, sends each write again once when the leader is found lacking it, and says when its
 * writes are confirmed again. A leader holding less than the writes it confirmed: it is
 * asked to step down, and when step-downs do not help the state ends loudly. The bucket's
 * servers are stand-ins (the answers of those moments are not made on demand by real
 * ones); the chain, the writer and its threads are the product's.
 */
@ExtendWith(OutputCaptureExtension.class)
class StateWriterTest {

    private static final String WRITER = "3-abc";

    private static final long FENCE = 5;

    private final Map<String, AtomicInteger> sends = new ConcurrentHashMap<>();

    private final AtomicInteger stepDowns = new AtomicInteger();

    private final Leader healthy = new Leader();

    private final Leader behind = new Leader();

    /** The bucket's leader now, {@code null} while none answers. */
    private volatile Leader leader;

    /** Whether writes are answered "in process" (the power just came back). */
    private volatile boolean inProcess;

    @ParameterizedTest
    @EnumSource(names = { "MESSAGE_ID", "ATOMIC_BATCH" })
    void writesAnsweredInProcessWithNoLeaderToAsk_waitWithoutBeingSentAgain_warnOnce_thenGoOnceMore(Chaining chaining,
            CapturedOutput output) throws Exception {
        inProcess = true;
        StateWriter writer = writer(chaining, Duration.ofMillis(600), Duration.ofSeconds(30), () -> "not asked");
        writer.write(batch("k1", "k2", "k3"));
        CompletableFuture<Void> flushed = writer.flush();

        // the power is off: answers "in process", no leader
        await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(3)).untilAsserted(() -> {
            assertThat(flushed).isNotDone();
            assertThat(sends.values()).as("nothing sent again while no look-up found it missing")
                .allSatisfy(n -> assertThat(n).hasValue(1));
        });
        assertThat(output).containsOnlyOnce("WARN")
            .contains("state bucket b: 3 write(s) not confirmed for")
            .contains("in process (10158)=" + (chaining == Chaining.ATOMIC_BATCH ? 1 : 3))
            .contains("none answered the last look-up");

        inProcess = false;
        leader = healthy;
        flushed.get(10, TimeUnit.SECONDS);
        assertThat(sends).hasSize(3);
        assertThat(sends.values()).as("each sent once more, no more").allSatisfy(n -> assertThat(n).hasValue(2));
        assertThat(healthy.stored).isEqualTo(FENCE + 3);
        assertThat(output).containsOnlyOnce("WARN").contains("state bucket b: writes confirmed again after");
    }

    @Test
    void aLeaderHoldingLessThanTheConfirmedWritesIsSteppedDown_andTheChainGoesOnWithTheNextLeader(CapturedOutput output)
            throws Exception {
        leader = healthy;
        StateWriter writer = writer(Duration.ofSeconds(30), Duration.ofMillis(300), () -> {
            stepDowns.incrementAndGet();
            leader = healthy;
            return "stepped down";
        });
        writer.write(batch("k1", "k2"));
        writer.flush().get(5, TimeUnit.SECONDS);

        // Issue 41, slow-disk: the leadership moved onto a replica holding only the
        // fence, its peers holding the writes it had confirmed.
        leader = behind;
        writer.write(batch("k3"));
        writer.flush().get(10, TimeUnit.SECONDS);

        assertThat(stepDowns).hasValue(1);
        assertThat(healthy.stored).isEqualTo(FENCE + 3);
        assertThat(output).containsOnlyOnce("WARN")
            .contains("state bucket b: its leader holds sequence 5, behind sequence 7 at which this writer's writes "
                    + "were confirmed")
            .contains("asked it to step down (1 of 3): stepped down");
    }

    @Test
    void writesTheServersLostForGood_endTheStateLoudlyAfterThreeStepDowns() throws Exception {
        leader = healthy;
        StateWriter writer = writer(Duration.ofSeconds(30), Duration.ofMillis(100), () -> {
            stepDowns.incrementAndGet();
            return "stepped down";
        });
        writer.write(batch("k1", "k2"));
        writer.flush().get(5, TimeUnit.SECONDS);

        leader = behind;
        writer.write(batch("k3"));

        assertThatThrownBy(() -> writer.flush().get(10, TimeUnit.SECONDS))
            .hasCauseInstanceOf(KeyValueState.StateLostException.class)
            .hasMessageContaining("state bucket b: its leaders hold sequence 5, behind sequence 7")
            .hasMessageContaining("after 3 leader step-downs: the servers lost confirmed writes");
        assertThat(stepDowns).hasValue(StateLeader.MAX_STEP_DOWNS);
    }

    private StateWriter writer(Duration warnAfter, Duration behindFor, Supplier<String> stepDown) {
        return writer(Chaining.MESSAGE_ID, warnAfter, behindFor, stepDown);
    }

    private StateWriter writer(Chaining chaining, Duration warnAfter, Duration behindFor, Supplier<String> stepDown) {
        return new StateWriter(new WriteChain(WRITER, "b", FENCE, Duration.ofMillis(100).toNanos(), chaining),
                new StateCache(100), new Server(),
                new StateLeader("b", this::held, stepDown, new StateRollback(new JetStreamLosses()), behindFor),
                TestThreads.states(), () -> {
                }, warnAfter);
    }

    private static Map<String, byte[]> batch(String... keys) {
        Map<String, byte[]> batch = new LinkedHashMap<>();
        for (String key : keys) {
            batch.put(key, new byte[] { 1 });
        }
        return batch;
    }

    /** What the bucket's leader holds, when there is one. */
    private Held held() {
        Leader now = leader;
        if (now == null) {
            throw new StateUnavailableException("no leader for stream KV_b", null);
        }
        synchronized (now) {
            return new Held(now.stored, now.lastId, false, null);
        }
    }

    /** A server's copy of the bucket: its last sequence and message id. */
    private static final class Leader {

        private long stored = FENCE;

        private String lastId = WRITER + ":0";

    }

    /**
     * While the power comes back every write is answered "in process"; else the leader
     * stores a write when its expectation holds and the healthy one's peers keep up (the
     * one behind holds what it held).
     */
    private final class Server implements ClusterTransport {

        @Override
        public Substrate substrate() {
            return Substrate.JETSTREAM;
        }

        @Override
        public CompletableFuture<PublishReceipt> publish(OutboundMessage message) {
            String write = message.messageId().replaceFirst("\\.\\d+$", "");
            sends.computeIfAbsent(write, w -> new AtomicInteger()).incrementAndGet();
            Leader now = leader;
            if (inProcess || now == null) {
                return CompletableFuture.failedFuture(refused(message, 503, 10158));
            }
            synchronized (now) {
                boolean expected = message.expectedLastSequence() != null ? message.expectedLastSequence() == now.stored
                        : now.lastId.equals(message.expectedLastMessageId());
                if (!expected) {
                    return CompletableFuture
                        .failedFuture(refused(message, 400, message.expectedLastSequence() != null ? 10071 : 10070));
                }
                now.lastId = message.messageId();
                return CompletableFuture
                    .completedFuture(new PublishReceipt(message.subject(), "KV_b", ++now.stored, false));
            }
        }

        /** A batch: stored whole when its first write's expected sequence holds. */
        @Override
        public CompletableFuture<PublishReceipt> publishAtomically(List<OutboundMessage> messages) {
            OutboundMessage last = messages.get(messages.size() - 1);
            messages.forEach(message -> sends
                .computeIfAbsent(message.messageId().replaceFirst("\\.\\d+$", ""), w -> new AtomicInteger())
                .incrementAndGet());
            Leader now = leader;
            if (inProcess || now == null) {
                return CompletableFuture.failedFuture(refused(last, 503, 10158));
            }
            synchronized (now) {
                Long expected = messages.get(0).expectedLastSequence();
                if (expected == null || expected != now.stored) {
                    return CompletableFuture.failedFuture(refused(last, 400, 10071));
                }
                now.lastId = last.messageId();
                now.stored += messages.size();
                return CompletableFuture.completedFuture(new PublishReceipt(last.subject(), "KV_b", now.stored, false));
            }
        }

        private PublishException refused(OutboundMessage message, int status, int code) {
            return new PublishException(message.subject(), "refused " + code,
                    new JetStreamApiException(
                            new ApiResponse<Object>(JsonParser.parseUnchecked("{\"error\": {\"code\": " + status
                                    + ", \"err_code\": " + code + ", \"description\": \"refused\"}}")) {
                            }));
        }

        @Override
        public Consumption consume(ConsumerDeclaration consumer, DeliveryHandler handler) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
        }

    }

}
