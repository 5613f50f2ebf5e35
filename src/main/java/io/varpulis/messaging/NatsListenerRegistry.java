package io.varpulis.messaging;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Starts every {@link NatsListener} container with the context and drains them on
 * shutdown (SPEC section 13), in the manner of Spring Kafka's
 * {@code KafkaListenerEndpointRegistry}. Started in the last phase, once every bean (the
 * streams' provisioning included) is ready; stopped first, before the connection closes.
 */
public class NatsListenerRegistry implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(NatsListenerRegistry.class);

    private final NatsListenerAnnotationBeanPostProcessor listeners;

    private final NatsListenerContainerFactory factory;

    private final Duration drainTimeout;

    private final List<NatsListenerContainer> containers = new CopyOnWriteArrayList<>();

    private volatile boolean running;

    /**
     * @param listeners the annotated methods found
     * @param factory makes their containers
     * @param drainTimeout how long each subscription may take to finish its deliveries on
     * shutdown
     */
    public NatsListenerRegistry(NatsListenerAnnotationBeanPostProcessor listeners, NatsListenerContainerFactory factory,
            Duration drainTimeout) {
        this.listeners = listeners;
        this.factory = factory;
        this.drainTimeout = drainTimeout;
    }

    /**
     * @throws IllegalStateException when two listeners share an id, or a listener cannot
     * start (the context then fails to start, naming it)
     */
    @Override
    public void start() {
        Set<String> ids = new HashSet<>();
        for (NatsListenerAnnotationBeanPostProcessor.AnnotatedListener found : listeners.listeners()) {
            if (!ids.add(found.annotation().id())) {
                throw new IllegalStateException("two @NatsListener methods have the id " + found.annotation().id()
                        + "; each needs its own (it names the durable consumer)");
            }
            NatsListenerContainer container = factory.create(found);
            container.start(factory.substrate());
            containers.add(container);
        }
        running = true;
    }

    @Override
    public void stop() {
        containers.forEach(container -> {
            log.info("listener {}: draining (up to {} ms)", container.id(), drainTimeout.toMillis());
            container.drain(drainTimeout);
        });
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * @return the running containers
     */
    public List<NatsListenerContainer> containers() {
        return List.copyOf(containers);
    }

}
