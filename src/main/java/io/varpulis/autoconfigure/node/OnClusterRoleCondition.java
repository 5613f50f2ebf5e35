package io.varpulis.autoconfigure.node;

import io.varpulis.cluster.node.ClusterRole;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

import java.util.Locale;

/**
 * The condition behind {@link ConditionalOnClusterRole}. An unknown role matches nothing;
 * binding {@link ClusterProperties} then fails startup naming the property.
 */
class OnClusterRoleCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        ConditionalOnClusterRole.Part part = (ConditionalOnClusterRole.Part) metadata
            .getAnnotationAttributes(ConditionalOnClusterRole.class.getName())
            .get("value");
        String configured = context.getEnvironment().getProperty("varpulis.cluster.role", "standalone");
        ClusterRole role;
        try {
            role = ClusterRole.valueOf(configured.trim().toUpperCase(Locale.ROOT));
        }
        catch (IllegalArgumentException e) {
            return ConditionOutcome.noMatch("varpulis.cluster.role '" + configured + "' is unknown");
        }
        boolean runs = part == ConditionalOnClusterRole.Part.COORDINATOR ? role.runsCoordinator() : role.runsWorker();
        return runs ? ConditionOutcome.match("role " + role + " runs the " + part + " part")
                : ConditionOutcome.noMatch("role " + role + " does not run the " + part + " part");
    }

}
