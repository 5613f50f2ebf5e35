package io.varpulis.cluster.coordinator;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.PurgeOptions;
import io.varpulis.cluster.protocol.Commands;
import io.varpulis.cluster.protocol.ControlPlaneBuckets;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.JetStreamErrors;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.Subjects;
import io.varpulis.pipeline.JetStreamKeyValueState;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.PipelineUnit;
import io.varpulis.pipeline.RouteEdge;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;

/**
 * The JetStream objects a pipeline group leaves on the server: its durable route
 * consumers, its pipelines' key-value state, its routed events in
 * {@code VARPULIS_ROUTING} and its entry in the group store ({@code {cluster}.{group}}).
 * Parked events in the DLQ are never touched.
 */
public final class GroupResources {

    private static final Logger log = LoggerFactory.getLogger(GroupResources.class);

    /**
     * Deletes what a removed group leaves on the server, when it is purged: nothing on
     * core.
     */
    @FunctionalInterface
    public interface Purger {

        /** Nothing is left on the server (core). */
        Purger NOTHING = group -> {
        };

        /**
         * @param group the removed group
         * @throws IOException when the server does not answer
         * @throws JetStreamApiException when the server refuses a deletion for a reason
         * other than absence
         */
        void purge(PipelineGroupSpec group) throws IOException, JetStreamApiException;

    }

    private GroupResources() {
    }

    /**
     * @param connection the connection
     * @return deletes a group's consumers and state and purges its routed events on
     * JetStream ({@link #purgeObjects}); its group store entry is left to the coordinator
     */
    public static Purger jetStream(Connection connection) {
        return group -> purgeObjects(connection, group);
    }

    /**
     * Deletes the group's consumers and state, purges its routed events, and forgets its
     * entry in the group store under the default cluster name, so a group declared again
     * under the same name starts from nothing. For tools that run before any coordinator
     * (the demo's clean-up); objects already absent are skipped.
     * @param connection the connection
     * @param group the group
     * @throws IOException when the server does not answer
     * @throws JetStreamApiException when the server refuses a deletion for a reason other
     * than absence
     */
    public static void purge(Connection connection, PipelineGroupSpec group) throws IOException, JetStreamApiException {
        purge(connection, group, Commands.DEFAULT_CLUSTER);
    }

    /**
     * As {@link #purge(Connection, PipelineGroupSpec)}, for the group of a named cluster.
     * @param connection the connection
     * @param group the group
     * @param cluster the cluster whose group store entry is forgotten
     * @throws IOException when the server does not answer
     * @throws JetStreamApiException when the server refuses a deletion for a reason other
     * than absence
     */
    public static void purge(Connection connection, PipelineGroupSpec group, String cluster)
            throws IOException, JetStreamApiException {
        purgeObjects(connection, group);
        if (connection.keyValueManagement().getBucketNames().contains(ControlPlaneBuckets.GROUPS)) {
            connection.keyValue(ControlPlaneBuckets.GROUPS).delete(GroupStore.key(cluster, group.name()));
        }
    }

    /**
     * Deletes the group's consumers and state and purges its routed events; its group
     * store entry is left to the caller (a coordinator deletes it itself, before its
     * pipelines stop).
     * @param connection the connection
     * @param group the group
     * @throws IOException when the server does not answer
     * @throws JetStreamApiException when the server refuses a deletion for a reason other
     * than absence
     */
    static void purgeObjects(Connection connection, PipelineGroupSpec group) throws IOException, JetStreamApiException {
        var jsm = connection.jetStreamManagement();
        for (PipelineGroupSpec.PipelineSpec pipeline : group.pipelines()) {
            for (RouteEdge edge : group.consumedEdges(pipeline.name())) {
                String durable = DurableNames.routeConsumer(edge.to(), edge.subject());
                try {
                    jsm.deleteConsumer(VarpulisJetStream.ROUTING_STREAM, durable);
                }
                catch (JetStreamApiException e) {
                    skipAbsent(e);
                }
            }
            for (PipelineUnit unit : PipelineUnit.of(group)) {
                if (!unit.pipeline().equals(pipeline.name())) {
                    continue;
                }
                try {
                    connection.keyValueManagement()
                        .delete(JetStreamKeyValueState.bucketName(unit.group(), unit.pipeline(), unit.partition()));
                }
                catch (JetStreamApiException e) {
                    skipAbsent(e);
                }
            }
        }
        try {
            jsm.purgeStream(VarpulisJetStream.ROUTING_STREAM,
                    PurgeOptions.subject(Subjects.PIPELINE_ROOT + "." + group.name() + ".>"));
        }
        catch (JetStreamApiException e) {
            skipAbsent(e);
        }
        log.info("purged consumers, state and routed events of pipeline group {}", group.name());
    }

    private static void skipAbsent(JetStreamApiException e) throws JetStreamApiException {
        if (!JetStreamErrors.isNotFound(e)) {
            throw e;
        }
    }

}
