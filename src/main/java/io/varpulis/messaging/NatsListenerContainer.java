package io.varpulis.messaging;

import io.varpulis.delivery.DeadLetterParker;
import io.varpulis.delivery.ParkReason;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.Delivery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;

/**
 * Runs one {@link NatsListener} method on its durable consumer (SPEC section 13): {@code concurrency} pull
 * subscriptions of the consumer through {@link ClusterTransport#consume}, and for each delivery: convert, call, publish
 * the return value and wait for its PubAck, then ack. The recoverer is the {@link DeadLetterParker}; the back-off is a
 * nak with the configured delay; the retry limit is the consumer's max_deliver.
 */
public class NatsListenerContainer {

    private static final Logger log = LoggerFactory.getLogger(NatsListenerContainer.class);

    private final ListenerEndpoint endpoint;
    private final ConsumerDeclaration consumer;
    private final ClusterTransport transport;
    private final DeadLetterParker parker;
    private final SubstrateMetrics metrics;
    private final PayloadConverter.Reader payload;
    private final NatsTemplate template;
    private final Duration nakDelay;
    private final List<Consumption> consumptions = new CopyOnWriteArrayList<>();
    // The apply meters, looked up on the first apply rather than on each (as a route ingress's).
    private volatile SubstrateMetrics.Applies applies;

    NatsListenerContainer(ListenerEndpoint endpoint, ConsumerDeclaration consumer, ClusterTransport transport,
                          DeadLetterParker parker, SubstrateMetrics metrics, PayloadConverter converter,
                          Duration nakDelay) {
        this.endpoint = endpoint;
        this.consumer = consumer;
        this.transport = transport;
        this.parker = parker;
        this.metrics = metrics;
        this.payload = endpoint.method().payloadReader(converter);
        this.template = new NatsTemplate(transport, converter);
        this.nakDelay = nakDelay;
    }

    /**
     * @return the listener's id
     */
    public String id() {
        return endpoint.id();
    }

    /**
     * @return the durable consumer it runs on
     */
    public ConsumerDeclaration consumer() {
        return consumer;
    }

    /**
     * @return whether it is consuming
     */
    public boolean isRunning() {
        return !consumptions.isEmpty();
    }

    /**
     * Creates the durable consumer if absent and starts its pull subscriptions.
     *
     * @throws IllegalStateException when the consumer cannot be created or bound
     */
    void start() {
        for (int i = 0; i < endpoint.concurrency(); i++) {
            consumptions.add(transport.consume(consumer, this::onDelivery));
        }
        log.info("listener {} ({}) consuming {} with durable {}, concurrency {}", endpoint.id(), endpoint.method(),
                consumer.filterSubject(), consumer.durable(), endpoint.concurrency());
    }

    /**
     * Stops pulling and lets the deliveries already received finish (ack or nak), each subscription waiting at most
     * the timeout; what is left unacked is redelivered after ack_wait.
     *
     * @param timeout the longest wait per subscription
     */
    void drain(Duration timeout) {
        consumptions.forEach(consumption -> consumption.drain(timeout));
        consumptions.clear();
    }

    void onDelivery(Delivery delivery) {
        if (delivery.attempt() > 1) {
            metrics.redelivered(endpoint.id(), SubstrateMetrics.UNPARTITIONED);
        }
        Object[] arguments;
        try {
            arguments = endpoint.method().arguments(delivery, payload);
        } catch (IOException e) {
            park(delivery, ParkReason.UNDECODABLE, e);
            return;
        }
        long started = System.nanoTime();
        try {
            publish(endpoint.method().invoke(arguments));
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            failed(delivery, e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e);
            return;
        }
        delivery.ack();
        SubstrateMetrics.Applies meters = applies;
        if (meters == null) {
            meters = metrics.applies(endpoint.id(), SubstrateMetrics.UNPARTITIONED);
            applies = meters;
        }
        meters.applied(System.nanoTime() - started);
    }

    /** Emit before ack: the return value's PubAck, when there is one, comes before the input's ack. */
    private void publish(Object result) throws ExecutionException, InterruptedException {
        if (result == null) {
            return;
        }
        OutboundEvent event = result instanceof OutboundEvent outbound ? outbound : OutboundEvent.to(sendTo(), result);
        CompletableFuture<?> receipt = template.send(event);
        receipt.get();
    }

    private String sendTo() {
        if (endpoint.sendTo().isBlank()) {
            throw new IllegalStateException("listener " + endpoint.id() + " returned a value but has no sendTo "
                    + "subject; set @NatsListener(sendTo = ...) or varpulis.nats.listeners." + endpoint.id()
                    + ".send-to, or return an OutboundEvent");
        }
        return endpoint.sendTo();
    }

    private void failed(Delivery delivery, Throwable failure) {
        if (endpoint.notRetryable(failure)) {
            park(delivery, ParkReason.UNPROCESSABLE, failure);
        } else if (delivery.isLastAttempt()) {
            park(delivery, ParkReason.MAX_DELIVER, failure);
        } else {
            log.warn("listener {} failed on {} (delivery {} of {}): {}; nak'ed, redelivered in {} ms", endpoint.id(),
                    delivery.subject(), delivery.attempt(), delivery.maxDeliver(), failure.toString(),
                    nakDelay.toMillis());
            delivery.nak(nakDelay);
        }
    }

    private void park(Delivery delivery, ParkReason reason, Throwable failure) {
        log.warn("listener {}: parking the event on {} ({}, delivery {} of {}): {}", endpoint.id(),
                delivery.subject(), reason.tag(), delivery.attempt(), delivery.maxDeliver(), failure.toString());
        parker.park(delivery, endpoint.id(), reason, failure).exceptionally(e -> {
            log.warn("listener {}: the DLQ did not take the event on {} ({}); nak'ed for redelivery", endpoint.id(),
                    delivery.subject(), e.toString());
            return null;
        });
    }
}
