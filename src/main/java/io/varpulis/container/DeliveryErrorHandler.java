package io.varpulis.container;

import io.varpulis.transport.Delivery;

/**
 * Decides what a failed delivery becomes before {@link Settlement} settles it, in the
 * manner of Spring Kafka's {@code CommonErrorHandler}: retry (the failure as it is: nak
 * after the back-off's delay, park on the last delivery), park now
 * ({@link Outcome#poison}), or skip ({@link Outcome#skipped}). Asked for every failed
 * apply of a running container; what it throws is counted
 * ({@code varpulis.consumer.errors{stage=error_handler}}) and the failure settles by the
 * default rule.
 */
@FunctionalInterface
public interface DeliveryErrorHandler {

    /**
     * @param failure where the handling threw and what
     * @param delivery the delivery (never settle it here: the container does)
     * @return the outcome to settle: {@code failure} itself to retry, a poison to park, a
     * skip; {@code null} keeps {@code failure}
     */
    Outcome handle(Outcome.Failed failure, Delivery delivery);

}
