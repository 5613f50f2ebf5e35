package io.varpulis.messaging;

/**
 * Decides what a {@link NatsListener}'s failed delivery becomes, in the manner of Spring
 * Kafka's {@code DefaultErrorHandler} with its recoverer: retry after the listener's
 * back-off (parked on the last delivery, max_deliver), park now, or skip. One bean of
 * this type is every listener's; {@link NatsListener#errorHandler()} names another bean
 * for one listener. Asked for an exception of the method or of the payload's conversion
 * (other than a payload that cannot be converted, parked {@code undecodable} at once, and
 * an exception listed in {@link NatsListener#notRetryable()}, parked at once), and for an
 * apply that ran past its timeout. What it throws is counted
 * ({@code varpulis.consumer.errors{stage="error_handler"}}) and logged, and the delivery
 * is retried.
 */
@FunctionalInterface
public interface NatsListenerErrorHandler {

    /**
     * @param failure the listener, the exception and the delivery
     * @return what the delivery becomes ({@code null}: {@link ErrorAction#retry()})
     */
    ErrorAction handle(ListenerFailure failure);

}
