package io.varpulis;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A properties class (a {@code @ConfigurationProperties} class or one nested in it) is
 * used by auto-configuration and settings mapping only (issue 35): domain code receives
 * settings records ({@code ConsumerSettings}, {@code ConnectionSettings},
 * {@code TransportSettings}, stream declarations), never a properties class. Settings
 * mapping is the {@code aot} hints, a {@code *Settings} type's {@code from(...)}, the
 * properties-backed {@code PropertiesNatsConnectionDetails} and the smoke-test command,
 * which binds its own settings outside a Spring context.
 */
class PropertiesBoundaryTest {

    private static final JavaClasses MAIN = new ClassFileImporter().importPath(Path.of("target/classes"));

    /**
     * Classes that still take a properties class other than {@code NatsProperties}, each
     * to be given a settings record: the list may only shrink.
     */
    private static final Set<String> NOT_YET = Set.of(
            "io.varpulis.cluster.coordinator.CoordinatorCommands -> ClusterProperties",
            "io.varpulis.cluster.coordinator.CoordinatorNode -> ClusterProperties",
            "io.varpulis.cluster.coordinator.GroupChecks -> ClusterProperties",
            "io.varpulis.cluster.coordinator.GroupDeclarations -> ClusterProperties",
            "io.varpulis.cluster.coordinator.HeartbeatReconciliation -> ClusterProperties",
            "io.varpulis.cluster.coordinator.PlacementLoop -> ClusterProperties",
            "io.varpulis.cluster.coordinator.RegistrationResponder -> ClusterProperties",
            "io.varpulis.cluster.coordinator.WorkerAdmission -> ClusterProperties",
            "io.varpulis.cluster.coordinator.WorkerHealthCheck -> ClusterProperties",
            "io.varpulis.cluster.node.NodeIdentity -> ClusterProperties",
            "io.varpulis.cluster.worker.CommandResponder -> ClusterProperties",
            "io.varpulis.cluster.worker.HeartbeatPublisher -> ClusterProperties",
            "io.varpulis.cluster.worker.WorkerNode -> ClusterProperties",
            "io.varpulis.cluster.worker.WorkerRegistration -> ClusterProperties",
            "io.varpulis.web.ClusterApiController -> NodeSecurityProperties",
            "io.varpulis.web.ClusterHttpSecurity -> NodeSecurityProperties");

    @Test
    void propertiesClassesAreUsedByAutoConfigurationAndSettingsMappingOnly() {
        assertThat(uses()).as("classes taking a properties class instead of a settings record")
            .allMatch(NOT_YET::contains, "listed in NOT_YET")
            .noneMatch(use -> use.endsWith("-> NatsProperties"));
    }

    @Test
    void theListOfClassesNotYetGivenSettingsOnlyShrinks() {
        assertThat(uses()).as("a use gone from the code is removed from NOT_YET").containsAll(NOT_YET);
    }

    /**
     * Each class outside settings mapping that uses a properties class, as
     * {@code class -> properties class}.
     */
    private static Set<String> uses() {
        Set<String> uses = new TreeSet<>();
        for (JavaClass user : MAIN) {
            if (mapsSettings(user) || properties(user) != null) {
                continue;
            }
            user.getDirectDependenciesFromSelf().forEach(dependency -> {
                JavaClass properties = properties(dependency.getTargetClass());
                if (properties != null) {
                    uses.add(top(user).getName() + " -> " + properties.getSimpleName());
                }
            });
        }
        return uses;
    }

    private static boolean mapsSettings(JavaClass type) {
        JavaClass top = top(type);
        String name = top.getName();
        return name.startsWith("io.varpulis.autoconfigure.") || name.startsWith("io.varpulis.aot.")
                || name.startsWith("io.varpulis.smoke.") || top.getSimpleName().endsWith("Settings")
                || top.getSimpleName().equals("PropertiesNatsConnectionDetails");
    }

    /** The properties class {@code type} is or is nested in, or {@code null}. */
    private static JavaClass properties(JavaClass type) {
        JavaClass top = top(type);
        return top.isAnnotatedWith(ConfigurationProperties.class) ? top : null;
    }

    private static JavaClass top(JavaClass type) {
        JavaClass current = type;
        while (current.getEnclosingClass().isPresent()) {
            current = current.getEnclosingClass().get();
        }
        return current;
    }

}
