package io.varpulis.cluster;

import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.PipelineGroupSpec.PipelineSpec;
import io.varpulis.pipeline.PipelineGroupSpec.ProcessorSpec;
import io.varpulis.pipeline.PipelineGroupSpec.RouteSpec;
import io.varpulis.pipeline.PipelineGroupSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The three-pipeline group of the cluster tests, {@code _external -> a -> b -> c}:
 * {@code a} passes every event, {@code b} filters out events whose field {@code drop} is
 * true, {@code c} is the workers' recording bean.
 */
public final class TestGroups {

    private TestGroups() {
    }

    /**
     * @param name the group name
     * @return the group
     */
    public static PipelineGroupSpec threeStages(String name) {
        return new PipelineGroupSpec(name,
                List.of(new PipelineSpec("a", new ProcessorSpec("passthrough", Map.of())),
                        new PipelineSpec("b",
                                new ProcessorSpec("filter",
                                        Map.of("expression", "event_type == 'Probe' and fields['drop'] != true"))),
                        new PipelineSpec("c", new ProcessorSpec("bean", Map.of("bean", ClusterNode.RECORDER)))),
                List.of(new RouteSpec("_external", "a", List.of("Probe")), new RouteSpec("a", "b", List.of("*")),
                        new RouteSpec("b", "c", List.of("Pro*"))));
    }

    /**
     * The same group as {@code --varpulis.cluster.groups.<name>.*} arguments, declared at
     * coordinator start.
     * @param name the group name
     * @return the arguments
     */
    public static String[] threeStagesAsProperties(String name) {
        String p = "--varpulis.cluster.groups." + name;
        List<String> args = new ArrayList<>(List.of(p + ".pipelines[0].name=a",
                p + ".pipelines[0].processor.type=passthrough", p + ".pipelines[1].name=b",
                p + ".pipelines[1].processor.type=filter",
                p + ".pipelines[1].processor.settings.expression=event_type == 'Probe' and fields['drop'] != true",
                p + ".pipelines[2].name=c", p + ".pipelines[2].processor.type=bean",
                p + ".pipelines[2].processor.settings.bean=" + ClusterNode.RECORDER,
                p + ".routes[0].from-pipeline=_external", p + ".routes[0].to-pipeline=a",
                p + ".routes[0].event-types[0]=Probe", p + ".routes[1].from-pipeline=a", p + ".routes[1].to-pipeline=b",
                p + ".routes[2].from-pipeline=b", p + ".routes[2].to-pipeline=c",
                p + ".routes[2].event-types[0]=Pro*"));
        return args.toArray(String[]::new);
    }

    /**
     * @param n the probe's number
     * @return a {@code Probe} event with field {@code n}, which the group carries to
     * {@code c}
     */
    public static Event probe(int n) {
        return Event.of("Probe", Map.of("n", n));
    }

    /**
     * @param events recorded events
     * @return their {@code n} fields
     */
    public static List<Integer> numbers(List<Event> events) {
        return events.stream().map(e -> ((Number) e.fields().get("n")).intValue()).toList();
    }

}
