package io.varpulis.messaging;

import io.varpulis.test.ApplicationProcess;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code spring.threads.virtual.enabled=true} on Java 21 or later, a listener runs
 * on a virtual thread named after its listener, as Spring Boot's Kafka and Rabbit
 * listeners do (SPEC section 19); without it, on a platform thread of the same name. The
 * service runs in a JVM of its own, on the newest JDK the machine has (this build's is
 * 17, which has no virtual threads): {@code VARPULIS_JAVA21_HOME}, else a JDK 21 or later
 * under {@code /usr/lib/jvm}; none is a failure, never a skip.
 */
@BrokerTest
class VirtualThreadsTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    @Test
    void aListenerRunsOnAVirtualThreadWhenSpringBootDoes() throws Exception {
        ApplicationProcess run = ApplicationProcess.run(java21(), VirtualThreadsService.class, TIMEOUT,
                "--varpulis.nats.url=" + nats.url(), "--varpulis.cluster.enabled=false",
                "--varpulis.nats.substrate=jetstream", "--varpulis.nats.jetstream.streams.VIRTUAL.subjects=virtual.>",
                "--spring.threads.virtual.enabled=true", "--management.tracing.export.zipkin.enabled=false");
        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output()).containsPattern("LISTENER-THREAD VirtualThread\\[#\\d+,varpulis-apply-virtual\\]");
    }

    @Test
    void withoutItAListenerRunsOnAPlatformThreadOfTheSameName() throws Exception {
        ApplicationProcess run = ApplicationProcess.run(java21(), VirtualThreadsService.class, TIMEOUT,
                "--varpulis.nats.url=" + nats.url(), "--varpulis.cluster.enabled=false",
                "--varpulis.nats.substrate=jetstream", "--varpulis.nats.jetstream.streams.VIRTUAL.subjects=virtual.>",
                "--management.tracing.export.zipkin.enabled=false");
        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output()).containsPattern("LISTENER-THREAD Thread\\[#\\d+,varpulis-apply-virtual,");
    }

    private static Path java21() throws IOException {
        String home = System.getenv("VARPULIS_JAVA21_HOME");
        if (home != null && !home.isBlank()) {
            return Path.of(home, "bin", "java");
        }
        try (Stream<Path> jdks = Files.list(Path.of("/usr/lib/jvm"))) {
            return jdks.filter(jdk -> Files.isExecutable(jdk.resolve("bin/java")))
                .filter(jdk -> feature(jdk) >= 21)
                .max((a, b) -> Integer.compare(feature(a), feature(b)))
                .map(jdk -> jdk.resolve("bin/java"))
                .orElseThrow(() -> new AssertionError("no JDK 21 or later under /usr/lib/jvm: install one (Debian's "
                        + "openjdk-21-jdk-headless, or Temurin) or set VARPULIS_JAVA21_HOME"));
        }
    }

    /** The JDK's feature version, from its {@code release} file; 0 when it has none. */
    private static int feature(Path jdk) {
        try {
            for (String line : Files.readAllLines(jdk.resolve("release"))) {
                if (line.startsWith("JAVA_VERSION=\"")) {
                    String version = line.substring("JAVA_VERSION=\"".length());
                    return Integer.parseInt(version.split("[.\"]")[0]);
                }
            }
        }
        catch (IOException | NumberFormatException e) {
            return 0;
        }
        return 0;
    }

}
