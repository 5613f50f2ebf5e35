package io.varpulis.messaging;

import org.springframework.context.SmartLifecycle;

import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Every {@link NatsListener}'s container, by id, in the manner of Spring Kafka's
 * {@code KafkaListenerEndpointRegistry} (SPEC section 19): made when the context starts,
 * in the last phase (once every bean, the streams' provisioning included, is ready), each
 * started unless its {@code autoStartup} says otherwise; drained when the context stops,
 * first, before the connection closes. A container is started, stopped, paused and
 * resumed by its id ({@link #getListenerContainer}), as the {@code natslisteners}
 * Actuator endpoint does.
 */
public class NatsListenerEndpointRegistry implements SmartLifecycle {

    private final NatsListenerAnnotationBeanPostProcessor listeners;

    private final NatsListenerContainerFactory factory;

    private final Duration drainTimeout;

    private final Map<String, NatsListenerContainer> containers = new LinkedHashMap<>();

    private volatile boolean running;

    /**
     * @param listeners the annotated methods found
     * @param factory makes their containers
     * @param drainTimeout how long each container may take to finish its deliveries when
     * it stops or pauses
     */
    public NatsListenerEndpointRegistry(NatsListenerAnnotationBeanPostProcessor listeners,
            NatsListenerContainerFactory factory, Duration drainTimeout) {
        this.listeners = listeners;
        this.factory = factory;
        this.drainTimeout = drainTimeout;
    }

    /**
     * Makes every listener's container, and starts those that start with the context.
     * @throws IllegalStateException when two listeners share an id, or a listener cannot
     * start (the context then fails to start, naming it)
     */
    @Override
    public synchronized void start() {
        if (containers.isEmpty()) {
            for (NatsListenerAnnotationBeanPostProcessor.AnnotatedListener found : listeners.listeners()) {
                if (containers.containsKey(found.annotation().id())) {
                    throw new IllegalStateException("two @NatsListener methods have the id " + found.annotation().id()
                            + "; each needs its own (it names the durable consumer)");
                }
                NatsListenerContainer container = factory.create(found);
                container.drainTimeout(drainTimeout);
                containers.put(container.id(), container);
            }
        }
        containers.values().stream().filter(NatsListenerContainer::isAutoStartup).forEach(NatsListenerContainer::start);
        running = true;
    }

    @Override
    public synchronized void stop() {
        containers.values().forEach(NatsListenerContainer::stop);
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * @param id a listener's id
     * @return its container, or {@code null} when no listener has that id
     */
    public NatsListenerContainer getListenerContainer(String id) {
        return containers.get(id);
    }

    /**
     * @return the listeners' ids
     */
    public Set<String> getListenerContainerIds() {
        return Set.copyOf(containers.keySet());
    }

    /**
     * @return every listener's container, in the order the listeners were found
     */
    public Collection<NatsListenerContainer> getListenerContainers() {
        return List.copyOf(containers.values());
    }

}
