package io.varpulis.autoconfigure.node;

import io.varpulis.autoconfigure.DeadLetterAutoConfiguration;
import io.varpulis.dlq.DeadLetterConsole;
import io.varpulis.web.DeadLetterController;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;

/**
 * The node's operator API over the dead-letter console: the {@link DeadLetterController}
 * under {@code /api/v1/cluster/dlq}, on a cluster node
 * ({@code varpulis.cluster.enabled=true}) whose role runs the coordinator part and serves
 * HTTP (servlet stack). Imported by the node only ({@link ImportNodeAutoConfiguration},
 * issue 35): a service reaches its parked events through the Actuator endpoint
 * {@code dlq} instead.
 */
@AutoConfiguration(after = DeadLetterAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnProperty(prefix = "varpulis.cluster", name = "enabled", havingValue = "true")
@ConditionalOnClusterRole(ConditionalOnClusterRole.Part.COORDINATOR)
@ConditionalOnBean(DeadLetterConsole.class)
public class DeadLetterApiAutoConfiguration {

    /**
     * @param console the console the controller answers from
     * @return the controller
     */
    @Bean
    @ConditionalOnMissingBean
    public DeadLetterController deadLetterController(DeadLetterConsole console) {
        return new DeadLetterController(console);
    }

}
