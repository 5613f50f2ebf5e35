package io.varpulis.cluster.coordinator;

import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.PipelineGroupSpec.PipelineSpec;
import io.varpulis.pipeline.PipelineGroupSpec.ProcessorSpec;
import io.varpulis.pipeline.PipelineGroupSpec.RouteSpec;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The checks a declared group passes ({@link GroupChecks}): route edges whose sanitised
 * durable names collide (ADR-007) are refused, and so is a name a live cluster of the
 * same account uses; a name stored by a cluster without a live leader, or by a
 * pre-cluster-name version, is not.
 */
class GroupChecksTest {

    @Test
    void aRouteEdgeWhoseDurableCollidesWithAnotherGroupsIsRefused() {
        PipelineGroupSpec first = group("g", "a_b");
        PipelineGroupSpec second = group("g_a", "b");
        assertThatCode(() -> GroupChecks.rejectDurableNameCollisions(List.of(), second)).doesNotThrowAnyException();
        assertThatCode(() -> GroupChecks.rejectDurableNameCollisions(List.of(first), first)).doesNotThrowAnyException();
        assertThatThrownBy(() -> GroupChecks.rejectDurableNameCollisions(List.of(first), second))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("would share the durable consumer");
    }

    @Test
    void aNameALiveClusterUsesIsRefused_aNameWithoutLiveLeaderIsNot() {
        PipelineGroupSpec group = group("shared", "a");
        Map<String, Set<String>> stored = Map.of("other", Set.of("shared"));
        assertThatThrownBy(() -> GroupChecks.rejectNameOfAnotherCluster(group, stored, "other"::equals))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("is used by cluster other");
        assertThatCode(() -> GroupChecks.rejectNameOfAnotherCluster(group, stored, name -> false))
            .doesNotThrowAnyException();
        assertThatCode(() -> GroupChecks.rejectNameOfAnotherCluster(group, Map.of("", Set.of("shared")), name -> true))
            .doesNotThrowAnyException();
    }

    private static PipelineGroupSpec group(String name, String from) {
        return new PipelineGroupSpec(name,
                List.of(new PipelineSpec(from, new ProcessorSpec("passthrough", Map.of())),
                        new PipelineSpec("c", new ProcessorSpec("passthrough", Map.of()))),
                List.of(new RouteSpec(from, "c", List.of("*"))));
    }

}
