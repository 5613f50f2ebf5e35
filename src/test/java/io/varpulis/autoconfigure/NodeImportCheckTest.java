package io.varpulis.autoconfigure;

import io.varpulis.autoconfigure.node.ImportNodeAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A service with the node's classes that asks for a node
 * ({@code varpulis.cluster.enabled=true}) without {@link ImportNodeAutoConfiguration}
 * fails startup naming the annotation, instead of running with no node.
 */
class NodeImportCheckTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(NodeImportCheckAutoConfiguration.class));

    @Configuration(proxyBeanMethods = false)
    static class Service {

    }

    @Configuration(proxyBeanMethods = false)
    @ImportNodeAutoConfiguration
    static class Node {

    }

    @Test
    void aNodeAskedForWithoutTheImportFailsStartupNamingTheAnnotationAndTheFix() {
        runner.withUserConfiguration(Service.class).withPropertyValues("varpulis.cluster.enabled=true").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).isInstanceOf(NodeNotImportedException.class);
            FailureAnalysis analysis = new NodeNotImportedFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("varpulis.cluster.enabled=true",
                    "@io.varpulis.autoconfigure.node.ImportNodeAutoConfiguration");
            assertThat(analysis.getAction()).contains("Annotate the application class with @",
                    "ImportNodeAutoConfiguration", "leave varpulis.cluster.enabled unset");
        });
    }

    @Test
    void withTheImportOrWithoutANodeAskedForTheServiceStarts() {
        runner.withUserConfiguration(Node.class)
            .withPropertyValues("varpulis.cluster.enabled=true")
            .run(context -> assertThat(context).hasNotFailed());
        runner.withUserConfiguration(Service.class).run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void withoutTheNodesClassesThereIsNothingToImport() {
        runner.withClassLoader(new FilteredClassLoader("io.varpulis.autoconfigure.node."))
            .withUserConfiguration(Service.class)
            .withPropertyValues("varpulis.cluster.enabled=true")
            .run(context -> assertThat(context).hasNotFailed());
    }

}
