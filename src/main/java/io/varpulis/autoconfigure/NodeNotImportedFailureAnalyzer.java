package io.varpulis.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a {@link NodeNotImportedException} into Spring Boot's "APPLICATION FAILED TO
 * START" report, naming the annotation that imports the node.
 */
public class NodeNotImportedFailureAnalyzer extends AbstractFailureAnalyzer<NodeNotImportedException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, NodeNotImportedException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.getAction(), cause);
    }

}
