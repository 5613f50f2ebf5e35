package io.varpulis.autoconfigure;

import io.varpulis.autoconfigure.node.DeadLetterApiAutoConfiguration;
import io.varpulis.autoconfigure.node.NodeSecurityAutoConfiguration;
import io.varpulis.autoconfigure.node.ClusterAutoConfiguration;
import io.varpulis.messaging.NatsListenerEndpointRegistry;
import io.varpulis.messaging.NatsTemplate;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.LibraryBoundary;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.transport.ClusterTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.context.properties.bind.validation.BindValidationException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The library jar (issue 22) carries none of the node's classes, nor the node's
 * auto-configurations (issue 35: the node imports them itself,
 * {@code ImportNodeAutoConfiguration}): with those classes hidden, a service gets the
 * substrate, its listeners and template, and no node part even with
 * {@code varpulis.cluster.enabled=true}, a property the library does not read (issue 44:
 * it names no node). {@link LibraryArtifactTest} checks the built jars.
 */
@BrokerTest
class LibraryJarTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    /**
     * What the library jar lacks, as {@code pom.xml} declares it: the node's packages,
     * and its {@code META-INF/spring} files.
     */
    private static final FilteredClassLoader LIBRARY_JAR = new FilteredClassLoader(LibraryBoundary::isNode);

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Service {

    }

    @Test
    void withoutTheNodesClassesAServiceGetsTheSubstrateItsListenersAndItsTemplate() {
        new ApplicationContextRunner().withClassLoader(LIBRARY_JAR)
            .withUserConfiguration(Service.class)
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream",
                    // Would start a worker if the node's auto-configurations were not
                    // filtered out.
                    "varpulis.cluster.enabled=true", "varpulis.cluster.role=worker")
            .run(context -> {
                assertThat(context).hasNotFailed()
                    .hasSingleBean(ClusterTransport.class)
                    .hasSingleBean(NatsTemplate.class)
                    .hasSingleBean(NatsListenerEndpointRegistry.class)
                    .doesNotHaveBean(ClusterAutoConfiguration.class)
                    .doesNotHaveBean(NodeSecurityAutoConfiguration.class)
                    .doesNotHaveBean(DeadLetterApiAutoConfiguration.class);
            });
    }

    @Test
    void withoutBeanValidationOnTheClasspathABadValueStillFailsStartupNamingTheProperty() {
        new ApplicationContextRunner().withUserConfiguration(Service.class)
            .withClassLoader(new FilteredClassLoader(name -> LibraryBoundary.isNode(name)
                    || name.startsWith("jakarta.validation.") || name.startsWith("org.hibernate.validator.")))
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream",
                    "varpulis.nats.jetstream.replicas=7")
            .run(context -> assertThat(context).hasFailed()
                .getFailure()
                .rootCause()
                .isInstanceOf(BindValidationException.class)
                .hasMessageContaining("varpulis.nats")
                .hasMessageContaining("jetstream.replicas")
                .hasMessageContaining("must be between 1 and 5, got 7"));
    }

}
