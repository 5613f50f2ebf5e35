package io.varpulis.autoconfigure.node;

import io.varpulis.autoconfigure.ClusterEnvironmentPostProcessor;
import io.varpulis.cluster.node.ClusterRole;
import io.varpulis.cluster.node.NodeIdentity;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads ADR-007's environment variables {@code VARPULIS_COORDINATOR_ID} and
 * {@code VARPULIS_WORKER_ID} as {@code varpulis.cluster.coordinator-id} and
 * {@code varpulis.cluster.worker-id}, and gives a cluster node
 * ({@code varpulis.cluster.enabled=true}) its default {@code varpulis.nats.inbox-prefix},
 * {@code _INBOX_{role}_{id}} ({@link NodeIdentity#inboxPrefix}). They rank below every
 * other source, so an explicit property or {@code VARPULIS_CLUSTER_COORDINATORID} wins.
 * Registered in the node's {@value ClusterEnvironmentPostProcessor#NODE_FACTORIES}, run
 * by the library's {@link ClusterEnvironmentPostProcessor}.
 */
public class NodeEnvironmentPostProcessor implements EnvironmentPostProcessor {

    /** Name of the property source this adds. */
    public static final String SOURCE = "varpulisAdrEnvironmentAliases";

    private static final String INBOX_PREFIX = "varpulis.nats.inbox-prefix";

    private static final Map<String, String> ALIASES = Map.of("VARPULIS_COORDINATOR_ID",
            "varpulis.cluster.coordinator-id", "VARPULIS_WORKER_ID", "varpulis.cluster.worker-id");

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        Map<String, Object> values = new LinkedHashMap<>();
        ALIASES.forEach((variable, property) -> {
            String value = environment.getProperty(variable);
            if (value != null && !value.isBlank()) {
                values.put(property, value.trim());
            }
        });
        MapPropertySource source = new MapPropertySource(SOURCE, values);
        environment.getPropertySources().addLast(source);
        String inboxPrefix = defaultInboxPrefix(Binder.get(environment));
        if (inboxPrefix != null) {
            values.put(INBOX_PREFIX, inboxPrefix);
        }
        if (values.isEmpty()) {
            environment.getPropertySources().remove(SOURCE);
        }
    }

    /**
     * @return the node's inbox prefix, or {@code null} when this is no cluster node, the
     * prefix is set, or a bad role or id (which the node's beans then refuse at startup,
     * naming the property)
     */
    private static String defaultInboxPrefix(Binder binder) {
        if (!binder.bind("varpulis.cluster.enabled", Boolean.class).orElse(false)
                || binder.bind(INBOX_PREFIX, String.class).isBound()) {
            return null;
        }
        try {
            return NodeIdentity.inboxPrefix(
                    binder.bind("varpulis.cluster.role", ClusterRole.class)
                        .orElseGet(() -> new ClusterProperties().getRole()),
                    binder.bind("varpulis.cluster.worker-id", String.class).orElse(null),
                    binder.bind("varpulis.cluster.coordinator-id", String.class).orElse(null));
        }
        catch (BindException | InvalidConfigurationPropertyValueException e) {
            return null;
        }
    }

}
