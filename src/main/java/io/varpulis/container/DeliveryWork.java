package io.varpulis.container;

import io.varpulis.transport.Delivery;
import org.springframework.util.backoff.BackOffExecution;

/**
 * One delivery's way through a {@link DeliveryContainer}: as received, as decorated, when
 * its apply began, and its waits for the broker.
 */
final class DeliveryWork {

    /** As the transport delivered it (what the container holds). */
    final Delivery received;

    /** As decorated for processing (what is settled). */
    final Delivery delivery;

    final long started = System.nanoTime();

    private BackOffExecution waits;

    private volatile boolean waited;

    DeliveryWork(Delivery received, Delivery delivery) {
        this.received = received;
        this.delivery = delivery;
    }

    long nextWait(ContainerRuntime runtime) {
        if (waits == null) {
            waits = runtime.backOff().start();
        }
        waited = true;
        return waits.nextBackOff();
    }

    void gotThrough(BrokerOutage outage) {
        if (waited) {
            outage.recovered();
        }
    }

}
