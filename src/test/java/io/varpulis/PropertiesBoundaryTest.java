package io.varpulis;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.varpulis.autoconfigure.NatsListenerProperties;
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
 * {@code TransportSettings}, {@code CoordinatorSettings}, {@code WorkerSettings},
 * {@code DeadLetterSettings}, stream declarations), never a properties class. Settings
 * mapping is the auto-configuration (where the properties classes live, with their
 * {@code toSettings(...)} and the properties-backed
 * {@code PropertiesNatsConnectionDetails}), the {@code aot} hints, a {@code *Settings}
 * type's {@code from(...)} and the smoke-test command, which binds the node's settings
 * outside a Spring context.
 */
class PropertiesBoundaryTest {

    private static final JavaClasses MAIN = new ClassFileImporter().importPath(Path.of("target/classes"));

    @Test
    void propertiesClassesAreUsedByAutoConfigurationAndSettingsMappingOnly() {
        assertThat(uses(MAIN)).as("classes taking a properties class instead of a settings record").isEmpty();
    }

    /**
     * The check sees a use, a nested properties type's included: it never passes by
     * abstaining.
     */
    @Test
    void aDomainClassTakingAPropertiesClassIsSeen() {
        assertThat(uses(new ClassFileImporter().importClasses(DomainUser.class)))
            .containsExactly("io.varpulis.PropertiesBoundaryTest -> NatsListenerProperties");
    }

    /** What the first test must never find in {@code src/main}. */
    static final class DomainUser {

        String subject(NatsListenerProperties.Listener listener) {
            return listener.getSubject();
        }

    }

    /**
     * Each class outside settings mapping that uses a properties class, as
     * {@code class -> properties class}.
     */
    private static Set<String> uses(JavaClasses classes) {
        Set<String> uses = new TreeSet<>();
        for (JavaClass user : classes) {
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
                || name.startsWith("io.varpulis.smoke.") || top.getSimpleName().endsWith("Settings");
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
