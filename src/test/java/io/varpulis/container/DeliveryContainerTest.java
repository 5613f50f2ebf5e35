package io.varpulis.container;

import io.varpulis.container.ContainerRig.TestDelivery;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.DeliveryDecorator;
import io.varpulis.transport.ForwardingDelivery;
import io.varpulis.transport.ParkReason;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The container without a broker (SPEC section 18): each outcome settled by the rule,
 * each place a delivery's handling can throw, an apply past its timeout, a container
 * stopped while busy. The same container runs on real servers in the broker-backed tests.
 */
class DeliveryContainerTest {

    private ContainerRig rig = new ContainerRig();

    @AfterEach
    void close() {
        rig.close();
    }

    private static CompletableFuture<Outcome> applied() {
        return CompletableFuture.completedFuture(Outcome.applied());
    }

    @Test
    void anAppliedDeliveryIsAcked() {
        DeliveryContainer container = rig.start(delivery -> applied());
        TestDelivery delivery = new TestDelivery(1);
        rig.transport.deliver(delivery);
        await().until(delivery::isSettled);
        assertThat(delivery.settlement()).isEqualTo("acked");
        assertThat(container.inFlight()).isZero();
    }

    @Test
    void aListenerThatThrowsIsNakedWithItsBackOffDelay_andTheThreadGoesOn() {
        rig.start(delivery -> {
            if (delivery.streamSequence() == 1) {
                throw new IllegalStateException("listener bug");
            }
            return applied();
        });
        TestDelivery failing = new TestDelivery(1);
        TestDelivery next = new TestDelivery(2);
        rig.transport.deliver(failing);
        rig.transport.deliver(next);
        await().until(() -> failing.isSettled() && next.isSettled());
        assertThat(failing.settlement()).isEqualTo("nak");
        assertThat(failing.nakDelay).isEqualTo(ContainerRig.NAK_DELAY);
        assertThat(next.settlement()).isEqualTo("acked");
        assertThat(rig.count("varpulis.consumer.errors", "stage", "listener")).isEqualTo(1);
    }

    @Test
    void anErrorOtherThanAVirtualMachineError_orAStackOverflow_isAFailedApply() {
        AtomicInteger calls = new AtomicInteger();
        DeliveryContainer container = rig.start(delivery -> {
            if (calls.incrementAndGet() == 1) {
                throw new AssertionError("an Error subclass");
            }
            if (calls.get() == 2) {
                throw new StackOverflowError();
            }
            return applied();
        });
        TestDelivery[] deliveries = { new TestDelivery(1), new TestDelivery(2), new TestDelivery(3) };
        for (TestDelivery delivery : deliveries) {
            rig.transport.deliver(delivery);
        }
        await().until(() -> deliveries[2].isSettled());
        assertThat(deliveries[0].settlement()).isEqualTo("nak");
        assertThat(deliveries[1].settlement()).isEqualTo("nak");
        assertThat(deliveries[2].settlement()).isEqualTo("acked");
        assertThat(container.isRunning()).isTrue();
    }

    @Test
    void aFailureOnTheLastDeliveryIsParkedBeforeItsAck() {
        rig.start(delivery -> {
            throw new IllegalArgumentException("poison");
        });
        TestDelivery last = new TestDelivery(7, 5, 5);
        rig.transport.deliver(last);
        await().until(last::isSettled);
        assertThat(last.settlement()).isEqualTo("parked");
        assertThat(last.parkReason()).isEqualTo(ParkReason.MAX_DELIVER);
        assertThat(rig.transport.published).singleElement()
            .satisfies(envelope -> assertThat(envelope.subject()).isEqualTo("varpulis.dlq.orders"));
    }

    @Test
    void aDecoratorThatThrows_leavesTheDeliveryAppliedUnobserved_andIsCounted() {
        rig.close();
        AtomicInteger decorated = new AtomicInteger();
        rig = new ContainerRig((consumer, delivery) -> {
            if (decorated.incrementAndGet() % 2 == 0) {
                throw new IllegalStateException("observation handler bug in onStart");
            }
            return delivery;
        });
        rig.start(delivery -> applied());
        TestDelivery[] deliveries = new TestDelivery[10];
        for (int i = 0; i < deliveries.length; i++) {
            deliveries[i] = new TestDelivery(i + 1);
            rig.transport.deliver(deliveries[i]);
        }
        await().until(() -> deliveries[9].isSettled());
        for (TestDelivery delivery : deliveries) {
            assertThat(delivery.settlement()).isEqualTo("acked");
        }
        assertThat(rig.count("varpulis.consumer.errors", "stage", "observation")).isEqualTo(5);
    }

    @Test
    void aContextThatThrowsWhenItOpens_stillAppliesTheDelivery_once() {
        rig.close();
        rig = new ContainerRig(decorating(delivery -> new ForwardingDelivery(delivery) {
            @Override
            public <T> T inContext(Supplier<T> work) {
                throw new IllegalStateException("onScopeOpened bug");
            }
        }));
        AtomicInteger applies = new AtomicInteger();
        rig.start(delivery -> {
            applies.incrementAndGet();
            return applied();
        });
        TestDelivery delivery = new TestDelivery(1);
        rig.transport.deliver(delivery);
        await().until(delivery::isSettled);
        assertThat(delivery.settlement()).isEqualTo("acked");
        assertThat(applies).hasValue(1);
    }

    @Test
    void aContextThatThrowsWhenItCloses_keepsTheAppliesOutcome() {
        rig.close();
        rig = new ContainerRig(decorating(delivery -> new ForwardingDelivery(delivery) {
            @Override
            public <T> T inContext(Supplier<T> work) {
                work.get();
                throw new IllegalStateException("onScopeClosed bug");
            }
        }));
        AtomicInteger applies = new AtomicInteger();
        rig.start(delivery -> {
            applies.incrementAndGet();
            return applied();
        });
        TestDelivery delivery = new TestDelivery(1);
        rig.transport.deliver(delivery);
        await().until(delivery::isSettled);
        assertThat(delivery.settlement()).isEqualTo("acked");
        assertThat(applies).hasValue(1);
    }

    @Test
    void aDecoratedSettlementThatThrows_stillSettlesTheDelivery() {
        rig.close();
        rig = new ContainerRig(decorating(delivery -> new ForwardingDelivery(delivery) {
            @Override
            protected void doAck() {
                throw new IllegalArgumentException("onStop bug before the delegate's ack");
            }
        }));
        rig.start(delivery -> applied());
        TestDelivery delivery = new TestDelivery(1);
        rig.transport.deliver(delivery);
        await().until(delivery::isSettled);
        assertThat(delivery.settlement()).isEqualTo("acked");
        assertThat(rig.count("varpulis.consumer.errors", "stage", "observation")).isEqualTo(1);
    }

    @Test
    void aVirtualMachineErrorStopsTheContainerLoudly_andLeavesWhatItHolds() {
        CountDownLatch second = new CountDownLatch(1);
        DeliveryContainer container = rig.start(delivery -> {
            await().until(() -> second.getCount() == 0);
            throw new OutOfMemoryError("Java heap space");
        });
        TestDelivery first = new TestDelivery(1);
        TestDelivery queued = new TestDelivery(2);
        rig.transport.deliver(first);
        rig.transport.deliver(queued);
        second.countDown();
        await().until(() -> container.stopReason() != null);
        assertThat(container.stopReason()).isEqualTo(StopReason.ERROR);
        assertThat(container.stopCause()).isInstanceOf(OutOfMemoryError.class);
        assertThat(container.isRunning()).isFalse();
        await().until(queued::isSettled);
        assertThat(queued.settlement()).isEqualTo("left");
        assertThat(first.isSettled()).isFalse();
        assertThat(rig.factory.containers().all()).contains(container);
    }

    @Test
    void anApplyPastItsTimeout_isReleasedForRedelivery_andItsThreadReplaced() {
        CountDownLatch release = new CountDownLatch(1);
        DeliveryContainer container = rig.start(ContainerRig.settings(1, Duration.ofMillis(600), null), delivery -> {
            if (delivery.streamSequence() == 1) {
                await().forever().until(() -> release.getCount() == 0);
            }
            return applied();
        });
        TestDelivery hung = new TestDelivery(1);
        TestDelivery next = new TestDelivery(2);
        rig.transport.deliver(hung);
        rig.transport.deliver(next);
        await().atMost(Duration.ofSeconds(5)).until(hung::isSettled);
        assertThat(hung.settlement()).isEqualTo("nak");
        assertThat(container.hungSequences()).containsExactly(1L);
        await().atMost(Duration.ofSeconds(5)).until(next::isSettled);
        assertThat(next.settlement()).isEqualTo("acked");

        TestDelivery redelivered = new TestDelivery(1, 2, 5);
        rig.transport.deliver(redelivered);
        await().until(redelivered::isSettled);
        assertThat(redelivered.settlement()).as("not applied twice at once in one process").isEqualTo("nak");

        release.countDown();
        await().until(() -> container.hungSequences().isEmpty());
        assertThat(hung.settlement()).isEqualTo("nak");
    }

    @Test
    void aThreadStuckWhenNoReplacementIsLeft_keepsItsQueue_andItGoesOnOnceItReturns() {
        CountDownLatch release = new CountDownLatch(1);
        DeliveryContainer container = rig.start(ContainerRig.settings(1, Duration.ofMillis(400), null), delivery -> {
            if (delivery.streamSequence() <= 2) {
                await().forever().until(() -> release.getCount() == 0);
            }
            return applied();
        });
        TestDelivery first = new TestDelivery(1);
        TestDelivery second = new TestDelivery(2);
        rig.transport.deliver(first);
        rig.transport.deliver(second);
        await().atMost(Duration.ofSeconds(5)).until(() -> container.hungSequences().size() == 2);
        TestDelivery third = new TestDelivery(3);
        rig.transport.deliver(third);
        await().during(Duration.ofMillis(500)).until(() -> !third.isSettled());
        release.countDown();
        await().atMost(Duration.ofSeconds(5)).until(third::isSettled);
        assertThat(third.settlement()).isEqualTo("acked");
        TestDelivery fourth = new TestDelivery(4);
        rig.transport.deliver(fourth);
        await().atMost(Duration.ofSeconds(5)).until(fourth::isSettled);
        assertThat(container.hungSequences()).isEmpty();
    }

    @Test
    void anApplyPastItsTimeoutOnItsLastDelivery_isParked_andItsLateReturnAcksNothing() {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger returned = new AtomicInteger();
        DeliveryContainer container = rig.start(ContainerRig.settings(1, Duration.ofMillis(400), null), delivery -> {
            await().forever().until(() -> release.getCount() == 0);
            returned.incrementAndGet();
            return applied();
        });
        TestDelivery last = new TestDelivery(1, 5, 5);
        rig.transport.deliver(last);
        await().atMost(Duration.ofSeconds(5)).until(last::isSettled);
        assertThat(last.settlement()).isEqualTo("parked");
        release.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> returned.get() == 1 && container.hungSequences().isEmpty());
        assertThat(last.settlement()).isEqualTo("parked");
        assertThat(rig.count("varpulis.events.applied", "pipeline", "orders")).isZero();
    }

    @Test
    void aWaitForTheBrokerLongerThanTheApplyTimeout_isSettledAsAFailure() {
        rig.start(ContainerRig.settings(1, Duration.ofMillis(600), null), delivery -> CompletableFuture
            .completedFuture(Outcome.brokerAway(new IllegalStateException("no responders"),
                    () -> CompletableFuture.completedFuture(Outcome
                        .brokerAway(new IllegalStateException("no responders"), () -> new CompletableFuture<>())))));
        TestDelivery delivery = new TestDelivery(1);
        rig.transport.deliver(delivery);
        await().atMost(Duration.ofSeconds(15)).until(delivery::isSettled);
        assertThat(delivery.settlement()).isEqualTo("nak");
    }

    @Test
    void anOutcomeThatNeverComes_isReleasedAfterTheTimeout() {
        DeliveryContainer container = rig.start(ContainerRig.settings(1, Duration.ofMillis(600), null),
                delivery -> new CompletableFuture<>());
        TestDelivery delivery = new TestDelivery(1);
        rig.transport.deliver(delivery);
        await().atMost(Duration.ofSeconds(5)).until(delivery::isSettled);
        assertThat(delivery.settlement()).isEqualTo("nak");
        assertThat(container.hungSequences()).containsExactly(1L);
    }

    @Test
    void anErrorHandlerParksNow_skips_orRetries() {
        DeliveryErrorHandler handler = (failure, delivery) -> switch ((int) delivery.streamSequence()) {
            case 1 -> Outcome.poison(ParkReason.UNPROCESSABLE, failure.cause());
            case 2 -> Outcome.skipped("a duplicate order", failure.cause());
            default -> failure;
        };
        rig.start(ContainerRig.settings(1, Duration.ofMinutes(5), handler), delivery -> {
            throw new IllegalArgumentException("bad order " + delivery.streamSequence());
        });
        TestDelivery parked = new TestDelivery(1);
        TestDelivery skipped = new TestDelivery(2);
        TestDelivery retried = new TestDelivery(3);
        rig.transport.deliver(parked);
        rig.transport.deliver(skipped);
        rig.transport.deliver(retried);
        await().until(() -> parked.isSettled() && skipped.isSettled() && retried.isSettled());
        assertThat(parked.settlement()).isEqualTo("parked");
        assertThat(parked.parkReason()).isEqualTo(ParkReason.UNPROCESSABLE);
        assertThat(skipped.settlement()).isEqualTo("acked");
        assertThat(rig.count("varpulis.events.skipped", "unit", "orders")).isEqualTo(1);
        assertThat(retried.settlement()).isEqualTo("nak");
    }

    @Test
    void anErrorHandlerThatThrows_isCounted_andTheDefaultRuleDecides() {
        rig.start(ContainerRig.settings(1, Duration.ofMinutes(5), (failure, delivery) -> {
            throw new IllegalStateException("handler bug");
        }), delivery -> {
            throw new IllegalArgumentException("bad order");
        });
        TestDelivery delivery = new TestDelivery(1);
        rig.transport.deliver(delivery);
        await().until(delivery::isSettled);
        assertThat(delivery.settlement()).isEqualTo("nak");
        assertThat(rig.count("varpulis.consumer.errors", "stage", "error_handler")).isEqualTo(1);
    }

    @Test
    void stoppedWhileBusy_theApplyRunningIsAcked_theQueuedAreLeft_aQueuedLastDeliveryParked() {
        CountDownLatch applying = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        DeliveryContainer container = rig.start(delivery -> {
            applying.countDown();
            await().until(() -> release.getCount() == 0);
            return applied();
        });
        TestDelivery running = new TestDelivery(1);
        TestDelivery queued = new TestDelivery(2);
        TestDelivery queuedLast = new TestDelivery(3, 5, 5);
        rig.transport.deliver(running);
        rig.transport.deliver(queued);
        rig.transport.deliver(queuedLast);
        await().until(() -> applying.getCount() == 0);
        container.stop();
        release.countDown();
        await().until(() -> running.isSettled() && queued.isSettled() && queuedLast.isSettled());
        assertThat(running.settlement()).isEqualTo("acked");
        assertThat(queued.settlement()).isEqualTo("left");
        assertThat(queuedLast.settlement()).isEqualTo("parked");
        assertThat(container.stopReason()).isEqualTo(StopReason.NORMAL);
    }

    @Test
    void aDeliveryHandedOverAfterTheContainerClosed_isSettledByTheRule() {
        DeliveryContainer container = rig.start(delivery -> applied());
        container.stop();
        TestDelivery late = new TestDelivery(1);
        TestDelivery lateLast = new TestDelivery(2, 5, 5);
        rig.transport.deliver(late);
        rig.transport.deliver(lateLast);
        await().until(() -> late.isSettled() && lateLast.isSettled());
        assertThat(late.settlement()).isEqualTo("left");
        assertThat(lateLast.settlement()).isEqualTo("parked");
    }

    @Test
    void concurrentAppliersEachGoOnAfterFailures() {
        Set<String> threads = ConcurrentHashMap.newKeySet();
        rig.start(ContainerRig.settings(3, Duration.ofMinutes(5), null), delivery -> {
            threads.add(Thread.currentThread().getName());
            if (delivery.streamSequence() % 3 == 0) {
                throw new IllegalStateException("every third");
            }
            return applied();
        });
        TestDelivery[] deliveries = new TestDelivery[30];
        for (int i = 0; i < deliveries.length; i++) {
            deliveries[i] = new TestDelivery(i + 1);
            rig.transport.deliver(deliveries[i]);
        }
        await().until(() -> java.util.Arrays.stream(deliveries).allMatch(Delivery::isSettled));
        assertThat(java.util.Arrays.stream(deliveries).filter(d -> d.settlement().equals("acked"))).hasSize(20);
        assertThat(threads).allMatch(name -> name.startsWith("varpulis-apply-orders-"));
    }

    private static DeliveryDecorator decorating(java.util.function.Function<Delivery, Delivery> wrap) {
        return (consumer, delivery) -> wrap.apply(delivery);
    }

}
