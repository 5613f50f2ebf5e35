package io.varpulis.autoconfigure;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader;

import java.util.List;

/**
 * Runs the node's own environment post-processors, registered under
 * {@value #NODE_FACTORIES} in the node's jar (its ids from ADR-007's variables, its inbox
 * prefix), and refuses a cluster node ({@code varpulis.cluster.enabled=true}) where there
 * is none: the library jar carries neither the node's classes nor that file (issue 35:
 * one boundary, declared by package), so this class names no node class.
 */
public class ClusterEnvironmentPostProcessor implements EnvironmentPostProcessor {

    /**
     * Where the node registers its environment post-processors, as
     * {@code org.springframework.boot.EnvironmentPostProcessor=...}; the library jar
     * excludes it with the node's other {@code META-INF/spring} files.
     */
    public static final String NODE_FACTORIES = "META-INF/spring/io.varpulis.autoconfigure.node.factories";

    /**
     * @throws IllegalStateException on a cluster node run from the library jar, which
     * does not carry the node
     */
    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        List<EnvironmentPostProcessor> node = SpringFactoriesLoader
            .forResourceLocation(NODE_FACTORIES, application.getClassLoader())
            .load(EnvironmentPostProcessor.class);
        if (node.isEmpty() && Binder.get(environment).bind("varpulis.cluster.enabled", Boolean.class).orElse(false)) {
            throw new IllegalStateException("varpulis.cluster.enabled=true asks for a cluster node, which the library "
                    + "jar io.varpulis:varpulis-cluster does not carry: run the node's jar (java -jar "
                    + "varpulis-cluster-<version>.jar, or the varpulis-cluster-<version>-exec.jar artifact), or leave "
                    + "varpulis.cluster.enabled unset in a service that uses the substrate");
        }
        node.forEach(postProcessor -> postProcessor.postProcessEnvironment(environment, application));
    }

}
