package io.varpulis.messaging;

import io.varpulis.container.ContainerSettings;
import io.varpulis.container.DeliveryContainer;
import io.varpulis.container.DeliveryContainerFactory;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.nats.Substrate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;

/**
 * Runs one {@link NatsListener} method on its durable consumer (SPEC section 13): a
 * {@link DeliveryContainer} with {@code concurrency} applying threads, whose adapter
 * converts, calls and publishes the return value ({@link ListenerAdapter}); the container
 * acks, naks, waits for the broker or parks, as for the cluster's route edges.
 */
public class NatsListenerContainer {

    private static final Logger log = LoggerFactory.getLogger(NatsListenerContainer.class);

    private final ListenerEndpoint endpoint;

    private final ConsumerDeclaration consumer;

    private final DeliveryContainer container;

    NatsListenerContainer(ListenerEndpoint endpoint, ConsumerDeclaration consumer, DeliveryContainerFactory containers,
            SubstrateMetrics metrics, PayloadConverter converter) {
        this.endpoint = endpoint;
        this.consumer = consumer;
        this.container = containers.create(consumer, endpoint.id(),
                metrics.deliveries(endpoint.id(), SubstrateMetrics.UNPARTITIONED, true),
                new ContainerSettings(endpoint.concurrency(), endpoint.backOff().toBackOff(), endpoint.applyTimeout(),
                        true,
                        endpoint.errorHandler() == null ? null
                                : new ListenerErrorHandling(endpoint.id(), endpoint.errorHandler())),
                new ListenerAdapter(endpoint, converter, new NatsTemplate(containers.transport(), converter)));
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
        return container.isRunning();
    }

    /**
     * Creates the durable consumer if absent and starts consuming.
     * @param substrate the substrate it consumes on, named in its startup line
     * @throws IllegalStateException when the consumer cannot be created or bound
     */
    void start(Substrate substrate) {
        container.start();
        if (substrate == Substrate.JETSTREAM) {
            log.info("listener {} ({}) consuming {} with durable {} on stream {}, concurrency {}", endpoint.id(),
                    endpoint.method(), consumer.filterSubject(), consumer.durable(), consumer.stream(),
                    endpoint.concurrency());
        }
        else {
            log.warn(
                    "listener {} ({}) subscribed to {} on the core substrate, concurrency {}: fire-and-forget, an "
                            + "event it fails on is lost and nothing is redelivered or parked; set "
                            + "varpulis.nats.substrate=jetstream to make it durable",
                    endpoint.id(), endpoint.method(), consumer.filterSubject(), endpoint.concurrency());
        }
    }

    /**
     * Stops pulling and lets the deliveries already received finish (acked, nak'ed or
     * parked), waiting at most the timeout; what is left unacked is redelivered after
     * ack_wait.
     * @param timeout the longest wait
     */
    void drain(Duration timeout) {
        container.drain(timeout);
    }

}
