package io.varpulis.pipeline;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.varpulis.nats.Subjects;
import org.springframework.boot.context.properties.bind.ConstructorBinding;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A pipeline group: pipelines and the routes between them (SPEC section 6). JSON:
 * {@code {"name": "ssh-bruteforce", "pipelines": [{"name": "detect", "processor": {"type": "brute-force",
 * "settings": {...}}}], "routes": [{"from_pipeline": "_external", "to_pipeline":
 * "ingress", "event_types": ["*"]}]}}.
 *
 * @param name the group name, a NATS token
 * @param pipelines its pipelines
 * @param routes its routes; {@code _external} is the source of injected events
 */
public record PipelineGroupSpec(@JsonProperty("name") String name,
        @JsonProperty("pipelines") List<PipelineSpec> pipelines, @JsonProperty("routes") List<RouteSpec> routes) {

    /**
     * Longest group or pipeline name: they become parts of durable, bucket and subject
     * names.
     */
    public static final int MAX_NAME_LENGTH = 64;

    /**
     * The default bound of a pipeline's {@code replicas}
     * ({@code varpulis.cluster.max-partitions}): each partition is a durable consumer, a
     * subject per input edge and a state bucket, so the bound keeps a typo (6400) from
     * creating thousands of them.
     */
    public static final int DEFAULT_MAX_PARTITIONS = 64;

    /**
     * Copies the lists (absent means empty).
     */
    public PipelineGroupSpec {
        pipelines = pipelines == null ? List.of() : List.copyOf(pipelines);
        routes = routes == null ? List.of() : List.copyOf(routes);
    }

    /**
     * Checks the group can run with at most {@value #DEFAULT_MAX_PARTITIONS} partitions
     * per pipeline, as {@link #validate(int)} does.
     * @return this group
     * @throws IllegalArgumentException naming the first problem found
     */
    public PipelineGroupSpec validate() {
        return validate(DEFAULT_MAX_PARTITIONS);
    }

    /**
     * Checks the group can run: names are NATS tokens of at most 64 characters, pipeline
     * names are unique, a pipeline's {@code replicas} is between 1 and
     * {@code maxPartitions} with a {@code partition_key} when above 1 (SPEC section 11),
     * routes join declared pipelines, their patterns are valid and they form no cycle.
     * @param maxPartitions the largest {@code replicas} allowed
     * ({@code varpulis.cluster.max-partitions})
     * @return this group
     * @throws IllegalArgumentException naming the first problem found, the field and the
     * fix
     */
    public PipelineGroupSpec validate(int maxPartitions) {
        if (name == null) {
            throw new IllegalArgumentException("a pipeline group needs a name");
        }
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
                throw new IllegalArgumentException(
                        "group " + name + " declares pipeline " + pipeline.name() + " twice");
            }
            if (pipeline.processor() == null || pipeline.processor().type() == null) {
                throw new IllegalArgumentException("pipeline " + pipeline.name() + " has no processor type");
            }
            pipeline.validatePartitioning(maxPartitions);
        }
        if (name.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("group name " + name.substring(0, 20) + "... has " + name.length()
                    + " characters; at most " + MAX_NAME_LENGTH + " (it becomes part of stream and bucket names)");
        }
        for (PipelineSpec pipeline : pipelines) {
            if (pipeline.name().length() > MAX_NAME_LENGTH) {
                throw new IllegalArgumentException("pipeline name " + pipeline.name().substring(0, 20) + "... has "
                        + pipeline.name().length() + " characters; at most " + MAX_NAME_LENGTH);
            }
        }
        for (RouteSpec route : routes) {
            if (!route.fromPipeline().equals(Subjects.EXTERNAL) && !names.contains(route.fromPipeline())) {
                throw new IllegalArgumentException(
                        "route from unknown pipeline " + route.fromPipeline() + " in group " + name);
            }
            if (!names.contains(route.toPipeline())) {
                throw new IllegalArgumentException(
                        "route to unknown pipeline " + route.toPipeline() + " in group " + name);
            }
            route.eventTypes().forEach(EventTypePattern::validate);
        }
        rejectCycles();
        return this;
    }

    /**
     * A route cycle (a pipeline reachable from itself) would send every event round
     * forever, filling the routing stream until discard Old evicts other groups' events:
     * refused.
     */
    private void rejectCycles() {
        Map<String, List<String>> next = new LinkedHashMap<>();
        routes
            .forEach(r -> next.computeIfAbsent(r.fromPipeline(), k -> new java.util.ArrayList<>()).add(r.toPipeline()));
        Set<String> done = new HashSet<>();
        for (PipelineSpec pipeline : pipelines) {
            visit(pipeline.name(), next, new java.util.ArrayList<>(), done);
        }
    }

    private void visit(String pipeline, Map<String, List<String>> next, List<String> path, Set<String> done) {
        if (done.contains(pipeline)) {
            return;
        }
        if (path.contains(pipeline)) {
            List<String> cycle = new java.util.ArrayList<>(path.subList(path.indexOf(pipeline), path.size()));
            cycle.add(pipeline);
            throw new IllegalArgumentException("routes of group " + name + " form a cycle ("
                    + String.join(" -> ", cycle) + "): every event would go round forever; remove a route");
        }
        path.add(pipeline);
        for (String to : next.getOrDefault(pipeline, List.of())) {
            visit(to, next, path, done);
        }
        path.remove(path.size() - 1);
        done.add(pipeline);
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
     * @return the route edges into it (unpartitioned subjects); a pipeline with one
     * replica has one durable consumer on each, a partitioned one consumes each with its
     * repartitioner (see {@link #consumedEdges(String)})
     */
    public List<RouteEdge> inputEdges(String pipeline) {
        return routes.stream()
            .filter(r -> r.toPipeline().equals(pipeline))
            .map(r -> new RouteEdge(name, r.fromPipeline(), r.toPipeline()))
            .distinct()
            .toList();
    }

    /**
     * Every edge a durable consumer of the pipeline reads (SPEC section 11): its input
     * edges, and for a partitioned pipeline also each input edge's partition subjects,
     * {@code partition 0} to {@code replicas - 1}.
     * @param pipeline a pipeline name
     * @return the edges, input edge by input edge, the unpartitioned one first
     */
    public List<RouteEdge> consumedEdges(String pipeline) {
        int partitions = pipeline(pipeline).map(PipelineSpec::partitions).orElse(1);
        List<RouteEdge> edges = new java.util.ArrayList<>();
        for (RouteEdge edge : inputEdges(pipeline)) {
            edges.add(edge);
            if (partitions > 1) {
                for (int p = 0; p < partitions; p++) {
                    edges.add(edge.partition(p));
                }
            }
        }
        return edges;
    }

    /**
     * @param edge one of the group's route edges
     * @return the event-type patterns the edge carries: those of every route from its
     * {@code from} to its {@code to}, in declaration order (empty when the group has no
     * such route)
     */
    public List<String> eventTypes(RouteEdge edge) {
        return routes.stream()
            .filter(r -> r.fromPipeline().equals(edge.from()) && r.toPipeline().equals(edge.to()))
            .flatMap(r -> r.eventTypes().stream())
            .distinct()
            .toList();
    }

    /**
     * @param pipeline a pipeline name
     * @return the routes out of it
     */
    public List<RouteSpec> outputRoutes(String pipeline) {
        return routes.stream().filter(r -> r.fromPipeline().equals(pipeline)).toList();
    }

    /**
     * A pipeline of the group. JSON: {@code {"name": "detect", "processor": {...},
     * "replicas": 4, "partition_key": "src_ip"}}; the last two are left out of the JSON
     * when absent, so an unpartitioned pipeline's spec reads as it did before partitions
     * existed.
     *
     * @param name the pipeline name, a NATS token
     * @param processor what it runs
     * @param replicas its partition count (SPEC section 11), {@code null} for 1
     * @param partitionKey the event field whose text picks the partition, required when
     * {@code replicas} is above 1
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record PipelineSpec(@JsonProperty("name") String name, @JsonProperty("processor") ProcessorSpec processor,
            @JsonProperty("replicas") Integer replicas, @JsonProperty("partition_key") String partitionKey) {

        /**
         * The constructor {@code application.yml} binds
         * ({@code varpulis.cluster.groups.<name>.pipelines[i].name,
         * processor, replicas, partition-key}) and JSON reads.
         */
        @ConstructorBinding
        public PipelineSpec {
        }

        /**
         * An unpartitioned pipeline.
         * @param name the pipeline name
         * @param processor what it runs
         */
        public PipelineSpec(String name, ProcessorSpec processor) {
            this(name, processor, null, null);
        }

        /**
         * @return how many partitions the pipeline runs in: {@code replicas}, 1 when
         * absent
         */
        @JsonIgnore
        public int partitions() {
            return replicas == null ? 1 : replicas;
        }

        /**
         * @return whether the pipeline runs in more than one partition
         */
        @JsonIgnore
        public boolean isPartitioned() {
            return partitions() > 1;
        }

        /**
         * @return how its events are spread over its partitions, empty when it has one
         */
        @JsonIgnore
        public Optional<Partitioning> partitioning() {
            return isPartitioned() ? Optional.of(new Partitioning(partitionKey, partitions())) : Optional.empty();
        }

        private void validatePartitioning(int maxPartitions) {
            if (replicas != null && (replicas < 1 || replicas > maxPartitions)) {
                throw new IllegalArgumentException("pipeline " + name + ": replicas is " + replicas + "; it must be "
                        + "between 1 and " + maxPartitions + " (varpulis.cluster.max-partitions raises the bound)");
            }
            if (isPartitioned() && (partitionKey == null || partitionKey.isBlank())) {
                throw new IllegalArgumentException("pipeline " + name + ": replicas is " + replicas + " but "
                        + "partition_key is missing; name the event field that keeps related events together "
                        + "(\"partition_key\": \"src_ip\"), or set replicas to 1");
            }
        }
    }

    /**
     * A processor: a type registered with the {@code ProcessorRegistry} and its settings.
     *
     * @param type the processor type ({@code filter}, {@code passthrough}, {@code bean},
     * {@code sshd-parse}, {@code brute-force}, {@code alert-file}, or one a service
     * registers)
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
     * @param toPipeline the receiving pipeline
     * @param eventTypes patterns: {@code *}, {@code Prefix*} or exact; absent means
     * {@code *}
     * @param payloadShape how the events are written on the route: {@value #NESTED} (the
     * default, absent: {@code {"event_type","timestamp","fields"}}) or {@value #FLAT}
     * (the fields at the top level, for a Rust Varpulis consumer, SPEC section 17); both
     * shapes are read on every route
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record RouteSpec(@JsonProperty("from_pipeline") String fromPipeline,
            @JsonProperty("to_pipeline") String toPipeline, @JsonProperty("event_types") List<String> eventTypes,
            @JsonProperty("payload_shape") String payloadShape) {

        /** The nested shape, ours and the default. */
        public static final String NESTED = "nested";

        /** The flat shape Varpulis's NATS connector reads and writes. */
        public static final String FLAT = "flat";

        /**
         * Defaults the patterns to {@code *}; the constructor {@code application.yml}
         * binds
         * ({@code ...routes[i].from-pipeline, to-pipeline, event-types, payload-shape})
         * and JSON reads.
         * @throws IllegalArgumentException when a pipeline name is missing, or the
         * payload shape is neither {@value #NESTED} nor {@value #FLAT}
         */
        @ConstructorBinding
        public RouteSpec {
            if (fromPipeline == null || toPipeline == null) {
                throw new IllegalArgumentException("a route needs from_pipeline and to_pipeline");
            }
            eventTypes = eventTypes == null || eventTypes.isEmpty() ? List.of("*") : List.copyOf(eventTypes);
            if (payloadShape != null && !NESTED.equals(payloadShape) && !FLAT.equals(payloadShape)) {
                throw new IllegalArgumentException("route " + fromPipeline + " -> " + toPipeline + ": payload_shape "
                        + "is '" + payloadShape + "'; it must be " + NESTED + " (the default) or " + FLAT
                        + " (fields at the top level, for a Rust Varpulis consumer)");
            }
        }

        /**
         * A route in the nested shape.
         * @param fromPipeline the emitting pipeline, or {@code _external}
         * @param toPipeline the receiving pipeline
         * @param eventTypes patterns; absent means {@code *}
         */
        public RouteSpec(String fromPipeline, String toPipeline, List<String> eventTypes) {
            this(fromPipeline, toPipeline, eventTypes, null);
        }

        /**
         * @return whether events are written flat on this route
         */
        @JsonIgnore
        public boolean isFlat() {
            return FLAT.equals(payloadShape);
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
