package io.varpulis.messaging;

import io.varpulis.jetstream.NakBackOff;

import java.time.Duration;
import java.util.List;

/**
 * One listener's settings, the annotation's merged with
 * {@code varpulis.nats.listeners.<id>.*}.
 *
 * @param id the id (durable, DLQ unit, meter tag)
 * @param subject the filter subject
 * @param stream the stream, or empty to find the one that captures the subject
 * @param concurrency deliveries at once, 1 or more
 * @param maxDeliver max_deliver, or 0 for the default
 * @param maxAckPending max_ack_pending, or 0 for the default
 * @param sendTo where a return value goes, or empty
 * @param notRetryable exceptions parked on the first delivery
 * @param backOff the delays of its naks
 * @param applyTimeout the longest an apply may take
 * @param errorHandler decides what a failed delivery becomes, or {@code null}
 * @param batchSize a batch method's most deliveries per call
 * @param autoStartup whether it starts with the context
 * @param orderedBySubject whether one subject's deliveries are applied in order
 * @param idleInterval after how long without a delivery it says it is idle, or
 * {@code null}
 * @param method the method
 */
record ListenerEndpoint(String id, String subject, String stream, int concurrency, int maxDeliver, int maxAckPending,
        String sendTo, List<Class<? extends Throwable>> notRetryable, NakBackOff backOff, Duration applyTimeout,
        NatsListenerErrorHandler errorHandler, int batchSize, boolean autoStartup, boolean orderedBySubject,
        Duration idleInterval, ListenerMethod method) {

    /**
     * @param failure what the method threw
     * @return whether it, or an exception in its cause chain, was declared not retryable
     */
    boolean notRetryable(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            Throwable current = t;
            if (notRetryable.stream().anyMatch(type -> type.isInstance(current))) {
                return true;
            }
        }
        return false;
    }
}
