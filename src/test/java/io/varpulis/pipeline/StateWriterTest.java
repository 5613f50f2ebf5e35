package io.varpulis.pipeline;

import io.nats.client.JetStreamApiException;
import io.nats.client.api.ApiResponse;
import io.nats.client.support.JsonParser;
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
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 41 (SPEC section 20), what a coordinated power loss did to a state's writer: its
 * writes answered "duplicate message id is in process" (10158) and no leader to ask for
 * seconds. The writer waits without sending them again, says at WARN after the bound what
 * it waits for, sends each write again once when the leader is found lacking it, and says
 * when its writes are confirmed again. The bucket's server is a stand-in (the answers of
 * that moment are not made on demand by a real one); the chain, the writer and its
 * threads are the product's.
 */
@ExtendWith(OutputCaptureExtension.class)
class StateWriterTest {

    private static final String WRITER = "3-abc";

    private static final long FENCE = 5;

    private final Map<String, AtomicInteger> sends = new ConcurrentHashMap<>();

    private final AtomicLong stored = new AtomicLong(FENCE);

    private final AtomicBoolean recovered = new AtomicBoolean();

    private volatile String lastStoredId = WRITER + ":0";

    @Test
    void writesAnsweredInProcessWithNoLeaderToAsk_waitWithoutBeingSentAgain_warnOnce_thenGoOnceMore(
            CapturedOutput output) throws Exception {
        WriteChain chain = new WriteChain(WRITER, "b", FENCE, Duration.ofMillis(100).toNanos());
        StateWriter writer = new StateWriter("b", chain, new StateCache(100), new Server(), this::leader,
                TestThreads.states(), () -> {
                }, Duration.ofMillis(600));
        Map<String, byte[]> batch = new LinkedHashMap<>();
        batch.put("k1", new byte[] { 1 });
        batch.put("k2", new byte[] { 2 });
        batch.put("k3", new byte[] { 3 });
        writer.write(batch);
        CompletableFuture<Void> flushed = writer.flush();

        Thread.sleep(1500); // the power is off: answers "in process", no leader
        assertThat(flushed).isNotDone();
        assertThat(sends.values()).as("nothing sent again while no look-up found it missing")
            .allSatisfy(n -> assertThat(n).hasValue(1));
        assertThat(output).containsOnlyOnce("WARN")
            .contains("state bucket b: 3 write(s) not confirmed for")
            .contains("in process (10158)=3")
            .contains("none answered the last look-up");

        recovered.set(true);
        flushed.get(10, TimeUnit.SECONDS);
        assertThat(sends).hasSize(3);
        assertThat(sends.values()).as("each sent once more, no more").allSatisfy(n -> assertThat(n).hasValue(2));
        assertThat(stored).hasValue(FENCE + 3);
        assertThat(output).containsOnlyOnce("WARN").contains("state bucket b: writes confirmed again after");
    }

    /** What the bucket's leader holds, when there is one. */
    private Held leader() {
        if (!recovered.get()) {
            throw new StateUnavailableException("no leader for stream KV_b", null);
        }
        return new Held(stored.get(), lastStoredId, false, null);
    }

    /**
     * Before the recovery every write is answered "in process"; after it, a write is
     * stored when its expectation holds.
     */
    private final class Server implements ClusterTransport {

        @Override
        public Substrate substrate() {
            return Substrate.JETSTREAM;
        }

        @Override
        public synchronized CompletableFuture<PublishReceipt> publish(OutboundMessage message) {
            String write = message.messageId().replaceFirst("\\.\\d+$", "");
            sends.computeIfAbsent(write, w -> new AtomicInteger()).incrementAndGet();
            if (!recovered.get()) {
                return CompletableFuture.failedFuture(new PublishException(message.subject(), "in process",
                        new JetStreamApiException(new ApiResponse<Object>(JsonParser.parseUnchecked(
                                "{\"error\": {\"code\": 503, \"err_code\": 10158, \"description\": \"in process\"}}")) {
                        })));
            }
            boolean expected = message.expectedLastSequence() != null ? message.expectedLastSequence() == stored.get()
                    : lastStoredId.equals(message.expectedLastMessageId());
            if (!expected) {
                return CompletableFuture.failedFuture(new PublishException(message.subject(), "wrong last",
                        new JetStreamApiException(new ApiResponse<Object>(JsonParser.parseUnchecked(
                                "{\"error\": {\"code\": 400, \"err_code\": 10071, \"description\": \"wrong\"}}")) {
                        })));
            }
            lastStoredId = message.messageId();
            return CompletableFuture
                .completedFuture(new PublishReceipt(message.subject(), "KV_b", stored.incrementAndGet(), false));
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
