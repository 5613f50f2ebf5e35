package io.varpulis.autoconfigure.node;

import io.varpulis.cluster.protocol.Registration;
import org.springframework.context.annotation.Conditional;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Matches when {@code varpulis.cluster.role} (default standalone) runs the given part:
 * the coordinator part runs on coordinator and standalone, the worker part on worker and
 * standalone.
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Conditional(OnClusterRoleCondition.class)
public @interface ConditionalOnClusterRole {

    /**
     * @return the part of a node that must run
     */
    Part value();

    /** The two parts of a node. */
    enum Part {

        /** Registration, heartbeats, placement, operator API. */
        COORDINATOR,
        /** Pipelines, route ingress, heartbeat publishing, commands. */
        WORKER

    }

}
