package io.varpulis.autoconfigure;

/**
 * A service asked for a cluster node ({@code varpulis.cluster.enabled=true}) and has the
 * node's classes, but never imported the node's auto-configurations: without this, it
 * would start silently with no node. {@link NodeNotImportedFailureAnalyzer} reports it.
 */
public class NodeNotImportedException extends RuntimeException {

    /** The annotation that imports the node's auto-configurations. */
    static final String ANNOTATION = "io.varpulis.autoconfigure.node.ImportNodeAutoConfiguration";

    /** Says what is missing. */
    public NodeNotImportedException() {
        super("varpulis.cluster.enabled=true asks for a cluster node, but no configuration class is annotated with @"
                + ANNOTATION + ", so none of the node's auto-configurations is imported");
    }

    /**
     * @return the fix, for the failure analysis
     */
    public String getAction() {
        return "Annotate the application class with @" + ANNOTATION + " (beside @SpringBootApplication), or leave "
                + "varpulis.cluster.enabled unset in a service that only uses the substrate.";
    }

}
