package io.varpulis.autoconfigure;

import io.varpulis.autoconfigure.node.SshDetectionAutoConfiguration;
import io.varpulis.bruteforce.BruteForceProperties;
import io.varpulis.pipeline.ProcessorType;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The main job's processor types are opt-in (review finding 6): a cluster node without
 * {@code varpulis.demo.processors.enabled=true} lets no one declare an {@code alert-file}
 * pipeline on it.
 */
class SshDetectionAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(SshDetectionAutoConfiguration.class))
        .withPropertyValues("varpulis.cluster.enabled=true");

    @Test
    void aClusterNodeHasNoneOfTheJobsTypesUnlessItOptsIn() {
        runner.run(context -> assertThat(context).hasNotFailed()
            .doesNotHaveBean(ProcessorType.class)
            .doesNotHaveBean(BruteForceProperties.class));
    }

    @Test
    void optedInItHasTheThreeTypes_alertFileConfinedToTheAlertDirectoryUnderTheTemporaryDirectoryByDefault() {
        runner.withPropertyValues("varpulis.demo.processors.enabled=true").run(context -> {
            assertThat(context.getBeansOfType(ProcessorType.class).values()).extracting(ProcessorType::name)
                .containsExactlyInAnyOrder("sshd-parse", "brute-force", "alert-file");
            assertThat(context.getBean(BruteForceProperties.class).getAlertDir())
                .isEqualTo(Path.of(System.getProperty("java.io.tmpdir"), "varpulis-alerts"));
        });
    }

    @Test
    void theAlertDirectoryIsAProperty() {
        runner.withPropertyValues("varpulis.demo.processors.enabled=true", "varpulis.demo.processors.alert-dir=/srv/a")
            .run(context -> assertThat(context.getBean(BruteForceProperties.class).getAlertDir())
                .isEqualTo(Path.of("/srv/a")));
    }

}
