package io.varpulis.container;

import io.varpulis.container.ContainerRig.TestDelivery;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.GivenUpMessage;
import io.varpulis.transport.ParkReason;
import io.varpulis.transport.PublishException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the {@link Settler} does with each decision, without a broker: a park the DLQ
 * refuses, a park while the DLQ is away, a message the server gave up on (parked,
 * stranded when gone from its stream, stranded with its sequence when its container
 * closes before it can be read).
 */
class SettlerTest {

    private final ContainerRig rig = new ContainerRig();

    @AfterEach
    void close() {
        rig.close();
    }

    private DeliveryContainer poisonEverything() {
        return rig.start(delivery -> CompletableFuture
            .completedFuture(Outcome.poison(ParkReason.UNPROCESSABLE, new IllegalArgumentException("poison"))));
    }

    @Test
    void aParkTheDlqRefusesIsNaked() {
        rig.transport.answer = message -> CompletableFuture.failedFuture(
                new PublishException(message.subject(), "maximum payload exceeded", new IllegalArgumentException()));
        poisonEverything();
        TestDelivery delivery = new TestDelivery(1);
        rig.transport.deliver(delivery);
        await().until(delivery::isSettled);
        assertThat(delivery.settlement()).isEqualTo("nak");
    }

    @Test
    void aParkWhileTheDlqIsAwayIsTriedAgain_thenAcked() {
        AtomicInteger tries = new AtomicInteger();
        rig.transport.answer = message -> tries.incrementAndGet() < 3
                ? CompletableFuture.failedFuture(new PublishException(message.subject(), "no PubAck",
                        new TimeoutException(), PublishException.Kind.UNAVAILABLE, null))
                : CompletableFuture.completedFuture(
                        new io.varpulis.transport.PublishReceipt(message.subject(), "VARPULIS_DLQ", 1, false));
        poisonEverything();
        TestDelivery delivery = new TestDelivery(1);
        rig.transport.deliver(delivery);
        await().atMost(Duration.ofSeconds(10)).until(delivery::isSettled);
        assertThat(delivery.settlement()).isEqualTo("parked");
        assertThat(tries).hasValue(3);
        assertThat(rig.count("varpulis.events.retried", "pipeline", "orders")).isEqualTo(2);
    }

    @Test
    void aMessageTheServerGaveUpIsParkedFromItsStream() {
        DeliveryContainer container = poisonEverything();
        TestDelivery stored = new TestDelivery(9, 5, 5);
        container.onGivenUp(givenUp(9, () -> Optional.of(stored)));
        await().until(stored::isSettled);
        assertThat(stored.settlement()).isEqualTo("parked");
        assertThat(stored.parkReason()).isEqualTo(ParkReason.SERVER_GAVE_UP);
    }

    @Test
    void aMessageTheServerGaveUpAndNoLongerHolds_isCountedStranded() {
        DeliveryContainer container = poisonEverything();
        container.onGivenUp(givenUp(9, Optional::empty));
        await().until(() -> rig.count("varpulis.events.stranded", "unit", "orders") == 1);
    }

    @Test
    void aMessageTheServerGaveUpThatCannotBeReadBeforeItsContainerCloses_isStrandedWithItsSequence() {
        DeliveryContainer container = poisonEverything();
        AtomicInteger reads = new AtomicInteger();
        container.onGivenUp(givenUp(9, () -> {
            reads.incrementAndGet();
            throw new IOException("no responders");
        }));
        await().until(() -> reads.get() >= 1);
        container.stop();
        assertThat(rig.count("varpulis.events.stranded", "unit", "orders")).isEqualTo(1);
        int after = reads.get();
        await().during(Duration.ofSeconds(1)).until(() -> reads.get() <= after + 1);
    }

    private interface Load {

        Optional<Delivery> load() throws IOException;

    }

    private static GivenUpMessage givenUp(long sequence, Load load) {
        return new GivenUpMessage() {
            @Override
            public String stream() {
                return "ORDERS";
            }

            @Override
            public String durable() {
                return "orders";
            }

            @Override
            public long streamSequence() {
                return sequence;
            }

            @Override
            public long deliveries() {
                return 5;
            }

            @Override
            public Optional<Delivery> load() throws IOException {
                return load.load();
            }

            @Override
            public String toString() {
                return "ORDERS sequence " + sequence;
            }
        };
    }

}
