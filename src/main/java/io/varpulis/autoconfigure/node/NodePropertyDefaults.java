package io.varpulis.autoconfigure.node;

import io.varpulis.autoconfigure.NatsConnectionProperties;
import io.varpulis.cluster.node.ClusterRole;
import io.varpulis.cluster.node.NodeIdentity;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.Ordered;
import org.springframework.core.PriorityOrdered;
import org.springframework.core.env.Environment;

import java.util.Locale;

/**
 * A node's defaults, set on its properties before Spring Boot binds them, so that every
 * property source wins over them: ADR-007's environment variables
 * {@code VARPULIS_COORDINATOR_ID} and {@code VARPULIS_WORKER_ID} as
 * {@code varpulis.cluster.coordinator-id} and {@code varpulis.cluster.worker-id} (an
 * explicit property or {@code VARPULIS_CLUSTER_COORDINATORID} wins), and the node's
 * connection: {@code varpulis.nats.inbox-prefix} {@code _INBOX_{role}_{id}}
 * ({@link NodeIdentity#inboxPrefix}) and {@code varpulis.nats.connection-name}
 * {@code varpulis-{role}-{id}}. Registered by {@link ClusterAutoConfiguration}, so only
 * on a cluster node; the library names no node (issue 44).
 */
public class NodePropertyDefaults implements BeanPostProcessor, PriorityOrdered {

    private final Environment environment;

    /**
     * @param environment the node's environment
     */
    public NodePropertyDefaults(Environment environment) {
        this.environment = environment;
    }

    /**
     * Before Spring Boot's binding ({@link #getOrder}), which then sets every property
     * that has a value.
     */
    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) {
        if (bean instanceof ClusterProperties cluster) {
            cluster.setCoordinatorId(variable("VARPULIS_COORDINATOR_ID"));
            cluster.setWorkerId(variable("VARPULIS_WORKER_ID"));
        }
        else if (bean instanceof NatsConnectionProperties nats) {
            Binder binder = Binder.get(environment);
            ClusterRole role = role(binder);
            String workerId = binder.bind("varpulis.cluster.worker-id", String.class)
                .orElseGet(() -> variable("VARPULIS_WORKER_ID"));
            String coordinatorId = binder.bind("varpulis.cluster.coordinator-id", String.class)
                .orElseGet(() -> variable("VARPULIS_COORDINATOR_ID"));
            String id = workerId != null ? workerId : coordinatorId;
            String name = role == null ? "standalone" : role.name().toLowerCase(Locale.ROOT);
            nats.setConnectionName(id == null ? "varpulis-" + name : "varpulis-" + name + "-" + id);
            nats.setInboxPrefix(inboxPrefix(role, workerId, coordinatorId));
        }
        return bean;
    }

    /** Before {@code ConfigurationPropertiesBindingPostProcessor}. */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    private String variable(String name) {
        String value = environment.getProperty(name);
        return value == null || value.isBlank() ? null : value.trim();
    }

    /**
     * @return the role, or {@code null} when it is not one (the node's beans then refuse
     * it at startup, naming the property)
     */
    private static ClusterRole role(Binder binder) {
        try {
            return binder.bind("varpulis.cluster.role", ClusterRole.class)
                .orElseGet(() -> new ClusterProperties().getRole());
        }
        catch (BindException e) {
            return null;
        }
    }

    /**
     * @return the node's inbox prefix, or {@code null} (jnats' {@code _INBOX}) on a bad
     * role or id, which the node's beans then refuse at startup, naming the property
     */
    private static String inboxPrefix(ClusterRole role, String workerId, String coordinatorId) {
        if (role == null) {
            return null;
        }
        try {
            return NodeIdentity.inboxPrefix(role, workerId, coordinatorId);
        }
        catch (InvalidConfigurationPropertyValueException e) {
            return null;
        }
    }

}
