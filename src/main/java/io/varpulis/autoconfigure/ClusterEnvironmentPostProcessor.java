package io.varpulis.autoconfigure;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads ADR-007's environment variables {@code VARPULIS_COORDINATOR_ID} and {@code VARPULIS_WORKER_ID} as
 * {@code varpulis.cluster.coordinator-id} and {@code varpulis.cluster.worker-id}. They rank below every other source,
 * so an explicit property or {@code VARPULIS_CLUSTER_COORDINATORID} wins.
 */
public class ClusterEnvironmentPostProcessor implements EnvironmentPostProcessor {

    /** Name of the property source this adds. */
    public static final String SOURCE = "varpulisAdrEnvironmentAliases";

    private static final Map<String, String> ALIASES = Map.of(
            "VARPULIS_COORDINATOR_ID", "varpulis.cluster.coordinator-id",
            "VARPULIS_WORKER_ID", "varpulis.cluster.worker-id");

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        Map<String, Object> values = new LinkedHashMap<>();
        ALIASES.forEach((variable, property) -> {
            String value = environment.getProperty(variable);
            if (value != null && !value.isBlank()) {
                values.put(property, value.trim());
            }
        });
        if (!values.isEmpty()) {
            environment.getPropertySources().addLast(new MapPropertySource(SOURCE, values));
        }
    }
}
