package io.varpulis.pipeline;

import io.varpulis.jetstream.DurableNames;
import io.varpulis.pipeline.PipelineGroupSpec.PipelineSpec;
import io.varpulis.pipeline.PipelineGroupSpec.ProcessorSpec;
import io.varpulis.pipeline.PipelineGroupSpec.RouteSpec;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * SPEC section 11 as pure functions: the partition of a key, the partition subjects and
 * their durables, the state buckets, and the validation of {@code replicas} and
 * {@code partition_key}.
 */
class PartitioningTest {

    private static PipelineGroupSpec group(Integer replicas, String key) {
        return new PipelineGroupSpec("g",
                List.of(new PipelineSpec("detect", new ProcessorSpec("passthrough", Map.of()), replicas, key)),
                List.of(new RouteSpec("_external", "detect", null)));
    }

    @Test
    void thePartitionIsFnv1a64OfTheKeysUtf8BytesModNReadUnsigned() {
        // FNV-1a-64("a") = 0xaf63dc4c8601ec8c: negative as a Java long, so the remainder
        // must be unsigned.
        assertThat(DurableNames.fnv1a64("a")).isEqualTo(0xaf63dc4c8601ec8cL);
        assertThat(Partitioning.partitionOf("a", 7)).isEqualTo((int) Long.remainderUnsigned(0xaf63dc4c8601ec8cL, 7));
        assertThat(Partitioning.partitionOf("", 3)).isEqualTo((int) Long.remainderUnsigned(0xcbf29ce484222325L, 3));
        assertThat(Partitioning.partitionOf("10.0.0.9", 1)).isZero();
    }

    @Test
    void manyKeysSpreadOverEveryPartition() {
        int[] counts = new int[4];
        for (int i = 0; i < 1000; i++) {
            counts[Partitioning.partitionOf("10.0." + (i / 256) + "." + (i % 256), 4)]++;
        }
        for (int count : counts) {
            assertThat(count).as("keys per partition of 4, 1000 keys").isBetween(150, 350);
        }
    }

    @Test
    void anEventWithoutATextKeyBelongsToNoPartition() {
        Partitioning byIp = new Partitioning("src_ip", 2);
        assertThatThrownBy(() -> byIp.partitionOf(Event.of("SshAuthFailure", Map.of("user", "root"))))
            .isInstanceOf(UnprocessableEventException.class)
            .hasMessageContaining("no field src_ip");
        assertThatThrownBy(() -> byIp.partitionOf(Event.of("SshAuthFailure", Map.of("src_ip", 42))))
            .isInstanceOf(UnprocessableEventException.class)
            .hasMessageContaining("non-text src_ip");
        assertThat(byIp.partitionOf(Event.of("SshAuthFailure", Map.of("src_ip", "10.0.0.9"))))
            .isEqualTo(Partitioning.partitionOf("10.0.0.9", 2));
    }

    @Test
    void aPartitionsSubjectAppendsItsIndexAndItsDurableFollowsTheSection4Rule() {
        RouteEdge edge = new RouteEdge("g", "ingress", "detect");
        assertThat(edge.subject()).isEqualTo("varpulis.cluster.pipeline.g.ingress.detect");
        assertThat(edge.partition(3).subject()).isEqualTo("varpulis.cluster.pipeline.g.ingress.detect.3");
        assertThat(edge.partition(3).name()).isEqualTo("g.ingress.detect.3");
        assertThat(DurableNames.routeConsumer("detect", edge.partition(3).subject()))
            .isEqualTo("route_detect__varpulis_cluster_pipeline_g_ingress_detect_3");
        // The unpartitioned edge is byte-identical to what it was before partitions
        // existed.
        assertThat(DurableNames.routeConsumer("detect", edge.subject()))
            .isEqualTo("route_detect__varpulis_cluster_pipeline_g_ingress_detect");
    }

    @Test
    void aPartitionedPipelineConsumesItsEntrySubjectAndEachPartitionsSubject() {
        PipelineGroupSpec group = group(3, "src_ip").validate();
        assertThat(group.consumedEdges("detect")).extracting(RouteEdge::subject)
            .containsExactly("varpulis.cluster.pipeline.g._external.detect",
                    "varpulis.cluster.pipeline.g._external.detect.0", "varpulis.cluster.pipeline.g._external.detect.1",
                    "varpulis.cluster.pipeline.g._external.detect.2");
        assertThat(PipelineUnit.of(group)).extracting(PipelineUnit::key)
            .containsExactly("g/detect/0", "g/detect/1", "g/detect/2");
        assertThat(group(null, null).consumedEdges("detect")).hasSize(1);
        assertThat(PipelineUnit.of(group(1, null))).extracting(PipelineUnit::key).containsExactly("g/detect");
    }

    @Test
    void unitKeysRoundTrip() {
        assertThat(PipelineUnit.parse("g/detect/2")).isEqualTo(new PipelineUnit("g", "detect", 2));
        assertThat(PipelineUnit.parse("g/detect")).isEqualTo(new PipelineUnit("g", "detect", Partitioning.NONE));
        assertThatThrownBy(() -> PipelineUnit.parse("g/detect/x")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void eachPartitionHasItsOwnBucketAndTheUnpartitionedBucketKeepsItsName() {
        Set<String> buckets = new HashSet<>();
        for (int p = 0; p < 64; p++) {
            String bucket = JetStreamKeyValueState.bucketName("g", "detect", p);
            assertThat(bucket).matches("[A-Za-z0-9_-]+").startsWith("varpulis_state_g_detect_p" + p + "_");
            buckets.add(bucket);
        }
        assertThat(buckets).hasSize(64).doesNotContain(JetStreamKeyValueState.bucketName("g", "detect"));
        assertThat(JetStreamKeyValueState.bucketName("g", "detect", Partitioning.NONE))
            .isEqualTo(JetStreamKeyValueState.bucketName("g", "detect"));
    }

    @Test
    void replicasAboveOneNeedAPartitionKey_theErrorNamesTheFieldAndTheFix() {
        assertThatThrownBy(() -> group(2, null).validate()).hasMessageContaining("partition_key is missing")
            .hasMessageContaining("or set replicas to 1");
        assertThatCode(() -> group(1, null).validate()).doesNotThrowAnyException();
        assertThatCode(() -> group(64, "src_ip").validate()).doesNotThrowAnyException();
    }

    @Test
    void replicasOutsideOneToTheBoundAreRefusedNamingTheSetting() {
        assertThatThrownBy(() -> group(0, "src_ip").validate()).hasMessageContaining("replicas is 0")
            .hasMessageContaining("between 1 and 64");
        assertThatThrownBy(() -> group(65, "src_ip").validate())
            .hasMessageContaining("varpulis.cluster.max-partitions");
        assertThatCode(() -> group(65, "src_ip").validate(128)).doesNotThrowAnyException();
    }

}
