package io.varpulis.pipeline;

import io.varpulis.nats.Subjects;

/**
 * A route edge of a pipeline group (ADR-007): events flow from one pipeline to another on
 * {@code varpulis.cluster.pipeline.{group}.{from}.{to}}. On JetStream each edge has one durable pull consumer per
 * consuming pipeline.
 *
 * @param group the pipeline group
 * @param from  the emitting pipeline, or {@code _external} for injected events
 * @param to    the receiving pipeline
 */
public record RouteEdge(String group, String from, String to) {

    /**
     * @throws IllegalArgumentException when a name is not a NATS token
     */
    public RouteEdge {
        Subjects.token("group", group);
        Subjects.token("pipeline", from);
        Subjects.token("pipeline", to);
    }

    /**
     * @return {@code varpulis.cluster.pipeline.{group}.{from}.{to}}
     */
    public String subject() {
        return Subjects.route(group, from, to);
    }

    /**
     * @return {@code {group}.{from}.{to}}, the meter tag and log name of the edge
     */
    public String name() {
        return group + "." + from + "." + to;
    }
}
