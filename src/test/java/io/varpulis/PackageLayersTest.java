package io.varpulis;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.varpulis.test.LibraryBoundary;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The package graph of {@code src/main} reads as layers, in the manner of Spring Boot 4's
 * module split: each package depends only on those below it, and no two packages reach
 * each other (issue 10). A new import that points up fails here with the class and the
 * dependency that broke the rule. No library package uses the node's
 * ({@link #noLibraryClassUsesTheNode}).
 */
class PackageLayersTest {

    /**
     * Bottom first: a package may use those before it in this list, never those after it.
     */
    static final List<String> LAYERS = List.of("support", // threads and other plumbing
                                                          // without domain
            "nats", // connection, connection details, substrate, subjects
            "jetstream", // stream and consumer declarations, durable names, admin, drift
            "transport", // ClusterTransport on core or JetStream, deliveries with
                         // one-shot ack
            "metrics", // Micrometer meters of the event paths
            "observation", // Micrometer Observation of publishes and deliveries (traces,
                           // SPEC section 14)
            "dlq", // the dead-letter queue: death envelopes, the parker, the console
            "container", // the delivery container every durable consumer runs in:
                         // settlement (it parks through dlq)
            "health", // the nats, jetstream and delivery containers' health
                      // indicators
            "pipeline", // (node) events, processors, group specs, route edges, key-value
                        // state
            "delivery", // (node) route ingress (a route edge's adapter), emitter,
                        // pipeline host,
                        // fencing
            "messaging", // a service's @NatsListener methods and NatsTemplate (SPEC
                         // section 13)
            "cluster.protocol", // what coordinators and workers say: commands,
                                // registration, heartbeats, buckets
            "cluster.node", // what a node of either role has: settings, role, identity,
                            // health, key-value lease
            "cluster.worker", // the worker: id lease, registration, heartbeats sent,
                              // commands served
            "cluster.coordinator", // the coordinator: admission, liveness, placement,
                                   // leadership, the API's queries
            "web", // the operator API
            "bruteforce", // the main job: sshd parsing, the brute-force detector, the
                          // alert sink
            "demo", // the demo launcher: the multi-process run and its report
            "testcontainers", // NatsConnectionDetails for @ServiceConnection containers
            "docker.compose", // NatsConnectionDetails for spring-boot-docker-compose
            "autoconfigure", // every @AutoConfiguration and properties class, on top of
                             // what it wires
            "smoke", // the smoke-test command: binds the node's properties outside a
                     // context, as the auto-configuration does
            "aot"); // the library's RuntimeHints: listener methods, JSON records, and the
                    // properties classes of autoconfigure

    private static final JavaClasses MAIN = new ClassFileImporter().importPath(Path.of("target/classes"));

    @Test
    void thePackageGraphHasNoCycle() {
        slices().matching("io.varpulis.(**)").should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void everyPackageDependsOnlyOnThePackagesBelowIt() {
        for (int i = 0; i < LAYERS.size(); i++) {
            String[] above = LAYERS.subList(i + 1, LAYERS.size())
                .stream()
                .map(p -> "io.varpulis." + p + "..")
                .toArray(String[]::new);
            if (above.length > 0) {
                noClasses().that()
                    .resideInAPackage("io.varpulis." + LAYERS.get(i) + "..")
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage(above)
                    .because(LAYERS.get(i) + " sits below " + String.join(", ", LAYERS.subList(i + 1, LAYERS.size())))
                    .check(MAIN);
            }
        }
    }

    /**
     * The library jar holds what a plain service runs (issue 44): no class of it uses the
     * node's, which the jar does not carry ({@code pom.xml} declares which packages are
     * the node's; {@link LibraryBoundary} reads them).
     */
    @Test
    void noLibraryClassUsesTheNode() {
        DescribedPredicate<JavaClass> node = DescribedPredicate.describe("in the node (pom.xml's library excludes)",
                c -> LibraryBoundary.isNode(c.getName()));
        noClasses().that(DescribedPredicate.not(node))
            .should()
            .dependOnClassesThat(node)
            .because("the library jar does not carry the node's classes: " + LibraryBoundary.nodeClassPrefixes())
            .check(MAIN);
    }

    /**
     * The two roles are peers: what the coordinator knows of a worker comes over the
     * wire, never from its classes.
     */
    @Test
    void theCoordinatorKnowsTheWorkerOnlyThroughTheProtocol() {
        noClasses().that()
            .resideInAPackage("io.varpulis.cluster.coordinator..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("io.varpulis.cluster.worker..")
            .because("a coordinator and a worker speak io.varpulis.cluster.protocol, in two processes")
            .check(MAIN);
    }

    @Test
    void everyPackageOfTheJarHasItsPlaceInTheLayers() {
        List<String> packages = MAIN.stream()
            .map(c -> c.getPackageName())
            .filter(p -> p.startsWith("io.varpulis."))
            .map(p -> p.substring("io.varpulis.".length()))
            .distinct()
            .toList();
        assertThat(packages)
            .allSatisfy(p -> assertThat(LAYERS).as("package io.varpulis.%s is missing from PackageLayersTest.LAYERS", p)
                .anyMatch(layer -> p.equals(layer) || p.startsWith(layer + ".")));
    }

}
