package io.varpulis.autoconfigure;

import io.varpulis.nats.NatsStartupException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a {@link NatsStartupException} into Spring Boot's "APPLICATION FAILED TO START"
 * report: the description and the action, without a stack trace an operator has to read
 * through.
 */
public class NatsStartupFailureAnalyzer extends AbstractFailureAnalyzer<NatsStartupException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, NatsStartupException cause) {
        return new FailureAnalysis(cause.getDescription(), cause.getAction(), cause);
    }

}
