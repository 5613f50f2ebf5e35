package io.varpulis;

import io.varpulis.test.ApplicationProcess;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a user who mistypes a command line sees (issue 15, items 1 and 2): the
 * application's main run as its own JVM.
 */
class CommandLineTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(180);

    @Test
    void aMistypedCommandNamesTheCommandsAndExitsWithoutStartingANode() throws Exception {
        ApplicationProcess run = ApplicationProcess.run(TIMEOUT, "smoke-tset");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.output())
            .contains("unknown command 'smoke-tset'", "demo", "smoke-test", "--varpulis.cluster.role=")
            .doesNotContain("Tomcat", "Started VarpulisClusterApplication");
    }

    @Test
    void helpPrintsTheCommandsAndExitsZero() throws Exception {
        ApplicationProcess run = ApplicationProcess.run(TIMEOUT, "help");
        assertThat(run.exitCode()).isZero();
        assertThat(run.output()).contains("commands:", "demo", "smoke-test");
    }

    @Test
    void aUrlWithANonNumericPortFailsStartupNamingThePropertyInAFewLinesWithoutAStackTrace() throws Exception {
        ApplicationProcess run = ApplicationProcess.run(TIMEOUT, "--varpulis.nats.url=nats://127.0.0.1:notaport",
                "--server.port=0", "--spring.main.banner-mode=off");
        assertThat(run.exitCode()).isNotZero();
        assertThat(run.output()).contains("varpulis.nats.url", "nats://127.0.0.1:notaport", "nats://HOST:PORT")
            .doesNotContain("URISyntaxException", "\tat ");
        assertThat(run.output().lines().filter(l -> !l.isBlank()).count()).as(run.output()).isLessThan(25);
    }

}
