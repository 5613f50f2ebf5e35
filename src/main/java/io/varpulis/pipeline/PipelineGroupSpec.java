package io.varpulis.pipeline;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.varpulis.delivery.RouteEdge;
import io.varpulis.transport.Subjects;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A pipeline group: pipelines and the routes between them (SPEC section 6). JSON:
 * {@code {"name": "ssh-bruteforce", "pipelines": [{"name": "detect", "processor": {"type": "brute-force",
 * "settings": {...}}}], "routes": [{"from_pipeline": "_external", "to_pipeline": "ingress",
 * "event_types": ["*"]}]}}.
 *
 * @param name      the group name, a NATS token
 * @param pipelines its pipelines
 * @param routes    its routes; {@code _external} is the source of injected events
 */
public record PipelineGroupSpec(
        @JsonProperty("name") String name,
        @JsonProperty("pipelines") List<PipelineSpec> pipelines,
        @JsonProperty("routes") List<RouteSpec> routes) {

    /**
     * Copies the lists (absent means empty).
     */
    public PipelineGroupSpec {
        pipelines = pipelines == null ? List.of() : List.copyOf(pipelines);
        routes = routes == null ? List.of() : List.copyOf(routes);
    }

    /**
     * Checks the group can run: names are NATS tokens, pipeline names are unique, routes join declared pipelines and
     * their patterns are valid.
     *
     * @return this group
     * @throws IllegalArgumentException naming the first problem found
     */
    public PipelineGroupSpec validate() {
        Subjects.token("group", name);
        if (pipelines.isEmpty()) {
            throw new IllegalArgumentException("group " + name + " has no pipelines");
        }
        Set<String> names = new HashSet<>();
        for (PipelineSpec pipeline : pipelines) {
            if (pipeline == null) {
                throw new IllegalArgumentException("group " + name + " has an empty pipeline entry");
            }
            Subjects.token("pipeline", pipeline.name());
            if (pipeline.name().equals(Subjects.EXTERNAL)) {
                throw new IllegalArgumentException("'" + Subjects.EXTERNAL + "' is reserved for injected events");
            }
            if (!names.add(pipeline.name())) {
                throw new IllegalArgumentException("group " + name + " declares pipeline " + pipeline.name()
                        + " twice");
            }
            if (pipeline.processor() == null || pipeline.processor().type() == null) {
                throw new IllegalArgumentException("pipeline " + pipeline.name() + " has no processor type");
            }
        }
        for (RouteSpec route : routes) {
            if (!route.fromPipeline().equals(Subjects.EXTERNAL) && !names.contains(route.fromPipeline())) {
                throw new IllegalArgumentException("route from unknown pipeline " + route.fromPipeline()
                        + " in group " + name);
            }
            if (!names.contains(route.toPipeline())) {
                throw new IllegalArgumentException("route to unknown pipeline " + route.toPipeline() + " in group "
                        + name);
            }
            route.eventTypes().forEach(EventTypePattern::validate);
        }
        return this;
    }

    /**
     * @param pipeline a pipeline name
     * @return its spec
     */
    public Optional<PipelineSpec> pipeline(String pipeline) {
        return pipelines.stream().filter(p -> p.name().equals(pipeline)).findFirst();
    }

    /**
     * @param pipeline a pipeline name
     * @return the route edges into it, one durable consumer each on JetStream
     */
    public List<RouteEdge> inputEdges(String pipeline) {
        return routes.stream().filter(r -> r.toPipeline().equals(pipeline))
                .map(r -> new RouteEdge(name, r.fromPipeline(), r.toPipeline())).distinct().toList();
    }

    /**
     * @param pipeline a pipeline name
     * @return the routes out of it
     */
    public List<RouteSpec> outputRoutes(String pipeline) {
        return routes.stream().filter(r -> r.fromPipeline().equals(pipeline)).toList();
    }

    /**
     * A pipeline of the group.
     *
     * @param name      the pipeline name, a NATS token
     * @param processor what it runs
     */
    public record PipelineSpec(@JsonProperty("name") String name,
                               @JsonProperty("processor") ProcessorSpec processor) {
    }

    /**
     * A processor: a type registered with the {@code ProcessorRegistry} and its settings.
     *
     * @param type     the processor type ({@code filter}, {@code passthrough}, {@code bean}, {@code sshd-parse},
     *                 {@code brute-force}, {@code alert-file}, or one a service registers)
     * @param settings the type's settings (JSON values)
     */
    @JsonInclude(JsonInclude.Include.NON_EMPTY)
    public record ProcessorSpec(@JsonProperty("type") String type,
                                @JsonProperty("settings") Map<String, Object> settings) {

        /**
         * Copies the settings (absent means none).
         */
        public ProcessorSpec {
            settings = settings == null ? Map.of() : new LinkedHashMap<>(settings);
        }

        /**
         * @param key a setting
         * @return its value as text, or {@code null}
         */
        @JsonIgnore
        public String text(String key) {
            Object value = settings.get(key);
            return value == null ? null : value.toString();
        }
    }

    /**
     * A route: events of the matching types flow from one pipeline to another.
     *
     * @param fromPipeline the emitting pipeline, or {@code _external}
     * @param toPipeline   the receiving pipeline
     * @param eventTypes   patterns: {@code *}, {@code Prefix*} or exact; absent means {@code *}
     */
    public record RouteSpec(@JsonProperty("from_pipeline") String fromPipeline,
                            @JsonProperty("to_pipeline") String toPipeline,
                            @JsonProperty("event_types") List<String> eventTypes) {

        /**
         * Defaults the patterns to {@code *}.
         *
         * @throws IllegalArgumentException when a pipeline name is missing
         */
        public RouteSpec {
            if (fromPipeline == null || toPipeline == null) {
                throw new IllegalArgumentException("a route needs from_pipeline and to_pipeline");
            }
            eventTypes = eventTypes == null || eventTypes.isEmpty() ? List.of("*") : List.copyOf(eventTypes);
        }

        /**
         * @param eventType an event's type
         * @return {@code true} when one of the patterns matches
         */
        public boolean matches(String eventType) {
            return eventTypes.stream().anyMatch(p -> EventTypePattern.matches(p, eventType));
        }
    }
}
