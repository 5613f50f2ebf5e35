package io.varpulis.container;

import io.micrometer.core.instrument.Timer;
import io.varpulis.container.ContainerRig.TestDelivery;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.ParkReason;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A batch adapter's outcomes, settled by the {@link Settler} (issue 42): those applied at
 * once acked in one pass (the applied counter by their number, one apply timer record per
 * pass), the others each by the rule: poison parked, a later outcome acked when it
 * completes, a failure nak'ed.
 */
class BatchSettlingTest {

    private static final CompletionStage<Outcome> APPLIED = CompletableFuture.completedFuture(Outcome.applied());

    private final ContainerRig rig = new ContainerRig();

    @AfterEach
    void close() {
        rig.close();
    }

    @Test
    void appliedElementsAreAckedInOnePass_theOthersEachByTheRule() throws InterruptedException {
        CountDownLatch allQueued = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        CompletableFuture<Outcome> later = new CompletableFuture<>();
        rig.startBatch(new BatchDeliveryAdapter() {
            @Override
            public int batchSize() {
                return 100;
            }

            @Override
            public List<CompletionStage<Outcome>> handle(List<Delivery> deliveries) {
                if (calls.incrementAndGet() == 1) {
                    await().until(() -> allQueued.getCount() == 0);
                }
                List<CompletionStage<Outcome>> outcomes = new ArrayList<>();
                for (Delivery delivery : deliveries) {
                    long sequence = delivery.streamSequence();
                    outcomes.add(sequence == 4
                            ? CompletableFuture.completedFuture(
                                    Outcome.poison(ParkReason.UNPROCESSABLE, new IllegalArgumentException("4")))
                            : sequence == 6 ? later : sequence == 8
                                    ? CompletableFuture.completedFuture(Outcome.failed(new IllegalStateException("8")))
                                    : APPLIED);
                }
                return outcomes;
            }
        });
        List<TestDelivery> deliveries = new ArrayList<>();
        for (int i = 1; i <= 10; i++) {
            TestDelivery delivery = new TestDelivery(i);
            deliveries.add(delivery);
            rig.transport.deliver(delivery);
        }
        allQueued.countDown();
        await().until(() -> deliveries.stream().filter(Delivery::isSettled).count() == 9);
        assertThat(deliveries.get(5).isSettled()).as("6 waits for its outcome").isFalse();
        later.complete(Outcome.applied());
        await().until(() -> deliveries.get(5).isSettled());

        for (TestDelivery delivery : deliveries) {
            long sequence = delivery.streamSequence();
            assertThat(delivery.settlement()).as("delivery " + sequence)
                .isEqualTo(sequence == 4 ? "parked" : sequence == 8 ? "nak" : "acked");
        }
        assertThat(rig.count("varpulis.events.applied", "pipeline", "orders")).isEqualTo(8);
        Timer apply = rig.registry.find("varpulis.events.apply").tags("pipeline", "orders").timer();
        assertThat(apply).isNotNull();
        // One record per pass of the deliveries applied at once (one per adapter call),
        // and one for the delivery applied later.
        assertThat(apply.count()).isEqualTo(calls.get() + 1L);
        assertThat(apply.totalTime(TimeUnit.NANOSECONDS)).isPositive();
    }

}
