package io.varpulis;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsClusterExtension;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

/**
 * Rules the test suite keeps about itself.
 */
class TestConventionsTest {

    private static final JavaClasses TESTS = new ClassFileImporter().importPath(Path.of("target/test-classes"));

    /**
     * {@code .ci/run} repeats the tests tagged {@code broker} on every nats-server
     * version of the matrix: a test class that starts a server without the tag would
     * silently run on one version only.
     */
    @Test
    void everyTestClassThatStartsANatsServerIsTaggedBroker() {
        DescribedPredicate<JavaClass> startsANatsServer = DescribedPredicate.describe("start a nats-server", c -> c
            .getDirectDependenciesFromSelf()
            .stream()
            .map(Dependency::getTargetClass)
            .anyMatch(
                    t -> t.isAssignableTo(NatsServerExtension.class) || t.isAssignableTo(NatsClusterExtension.class)));
        classes().that()
            .haveSimpleNameEndingWith("Test")
            .and()
            .areTopLevelClasses()
            .and(startsANatsServer)
            .and()
            .doNotHaveSimpleName(TestConventionsTest.class.getSimpleName())
            .should()
            .beAnnotatedWith(BrokerTest.class)
            .check(TESTS);
    }

}
