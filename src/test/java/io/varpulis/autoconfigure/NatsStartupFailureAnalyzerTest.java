package io.varpulis.autoconfigure;

import io.varpulis.jetstream.JetStreamPermissionException;
import io.varpulis.jetstream.JetStreamUnavailableException;
import io.varpulis.nats.NatsStartupException;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.io.support.SpringFactoriesLoader;

import java.io.IOException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring Boot's "APPLICATION FAILED TO START" report of a NATS startup refusal: what is
 * wrong and the fix.
 */
class NatsStartupFailureAnalyzerTest {

    private final NatsStartupFailureAnalyzer analyzer = new NatsStartupFailureAnalyzer();

    @Test
    void reportHasTheDescriptionAndTheAction() {
        NatsStartupException refusal = new NatsStartupException("NATS server at nats://127.0.0.1:4999 refused",
                "Fix the credentials.", null);

        FailureAnalysis analysis = analyzer.analyze(refusal);

        assertThat(analysis.getDescription()).isEqualTo("NATS server at nats://127.0.0.1:4999 refused");
        assertThat(analysis.getAction()).isEqualTo("Fix the credentials.");
        assertThat(analysis.getCause()).isSameAs(refusal);
    }

    @Test
    void jetStreamUnavailableDeepInTheBeanCreationChainIsReportedWithTheFix() {
        JetStreamUnavailableException unavailable = new JetStreamUnavailableException("nats://127.0.0.1:4999",
                "the server's INFO says jetstream=false", new IOException("no responders"));
        Throwable failure = new BeanCreationException("clusterTransport", "cannot create",
                new BeanCreationException("jetStreamAdmin", "cannot create", unavailable));

        FailureAnalysis analysis = analyzer.analyze(failure);

        assertThat(analysis).isNotNull();
        assertThat(analysis.getDescription()).contains("nats://127.0.0.1:4999", "varpulis.nats.substrate=jetstream",
                "jetstream=false");
        assertThat(analysis.getAction()).contains("-js", "jetstream {}", "VARPULIS_NATS_SUBSTRATE=core");
        assertThat(analysis.getCause()).isSameAs(unavailable);
    }

    @Test
    void missingPermissionIsReportedWithTheSubjectToGrant() {
        JetStreamPermissionException denied = new JetStreamPermissionException("stream VARPULIS_ROUTING",
                "$JS.API.STREAM.CREATE.VARPULIS_ROUTING", "Permissions Violation for Publish", "_INBOX_worker_w1.>",
                null);

        FailureAnalysis analysis = analyzer.analyze(new IllegalStateException("wrapped", denied));

        assertThat(analysis.getDescription()).contains("stream VARPULIS_ROUTING",
                "$JS.API.STREAM.CREATE.VARPULIS_ROUTING");
        assertThat(analysis.getAction()).contains("$JS.API.STREAM.CREATE.VARPULIS_ROUTING", "_INBOX_worker_w1.>");
    }

    @Test
    void otherFailuresAreLeftToOtherAnalyzers() {
        assertThat(analyzer.analyze(new IllegalStateException("not about NATS"))).isNull();
    }

    @Test
    void analyzerIsRegisteredForSpringBoot() {
        assertThat(SpringFactoriesLoader.forDefaultResourceLocation(getClass().getClassLoader())
            .load(FailureAnalyzer.class, null,
                    // Some of Spring Boot's own analyzers need a bean factory; they are
                    // not what this checks.
                    SpringFactoriesLoader.FailureHandler.handleMessage((message, failure) -> {
                    })))
            .hasAtLeastOneElementOfType(NatsStartupFailureAnalyzer.class);
    }

}
