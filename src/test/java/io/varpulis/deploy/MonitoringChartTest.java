package io.varpulis.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.marcnuri.helm.Helm;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static io.varpulis.deploy.Yamls.at;
import static io.varpulis.deploy.Yamls.listAt;
import static io.varpulis.deploy.Yamls.mapAt;
import static io.varpulis.deploy.Yamls.stringAt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The chart's Grafana dashboard and KEDA scaling, rendered by the Helm engine (SPEC
 * section 15).
 */
class MonitoringChartTest {

    private static final Helm HELM = new Helm(Path.of("helm/varpulis").toAbsolutePath());

    @Test
    void theDashboardIsAConfigMapTheGrafanaSidecarLoads_withTheFileAsItIs() throws Exception {
        RenderedManifests manifests = RenderedManifests.parse(HELM.template()
            .withName("varpulis")
            .set("monitoring.dashboard.enabled", "true")
            .set("monitoring.dashboard.folder", "Streaming")
            .set("monitoring.dashboard.labels.team", "ops")
            .call());

        Map<String, Object> configMap = manifests.get("ConfigMap", "varpulis-dashboard");
        assertThat(mapAt(configMap, "metadata", "labels")).containsEntry("grafana_dashboard", "1")
            .containsEntry("team", "ops");
        assertThat(mapAt(configMap, "metadata", "annotations")).containsEntry("grafana_folder", "Streaming");
        String json = stringAt(configMap, "data", "varpulis.json");
        assertThat(new ObjectMapper().readTree(json))
            .isEqualTo(new ObjectMapper().readTree(Files.readString(Dashboard.FILE)));
        assertThat(RenderedManifests.parse(HELM.template().withName("varpulis").call())
            .contains("ConfigMap", "varpulis-dashboard")).as("off unless asked for").isFalse();
    }

    @Test
    void everyPanelQueriesAVarpulisMeterFromTheDashboardsDatasource() throws Exception {
        JsonNode dashboard = new ObjectMapper().readTree(Files.readString(Dashboard.FILE));

        assertThat(dashboard.path("uid").asText()).isEqualTo("varpulis");
        for (JsonNode panel : dashboard.path("panels")) {
            if (panel.path("type").asText().equals("row")) {
                continue;
            }
            assertThat(panel.path("datasource").path("uid").asText()).as(panel.path("title").asText())
                .isEqualTo("${datasource}");
            assertThat(panel.path("targets")).as(panel.path("title").asText()).isNotEmpty();
        }
        assertThat(Dashboard.queries(Files.readString(Dashboard.FILE)).values()).allMatch(q -> q.contains("varpulis_"))
            .anyMatch(q -> q.contains("varpulis_events_apply_seconds_bucket"))
            .anyMatch(q -> q.contains("varpulis_cluster_leader_epoch"))
            .anyMatch(q -> q.contains("varpulis_stream_max_bytes"));
    }

    @Test
    void kedaScalesTheWorkerStatefulSetOnEachRoutingConsumersLag_oneWorkerAtATime() {
        RenderedManifests manifests = RenderedManifests.parse(HELM.template()
            .withName("varpulis")
            .withNamespace("ops")
            .set("keda.enabled", "true")
            .set("keda.consumers[0]", "route_detect_a")
            .set("keda.consumers[1]", "route_alert_b")
            .call());

        Map<String, Object> scaled = manifests.get("ScaledObject", "varpulis-worker");
        assertThat(mapAt(scaled, "spec", "scaleTargetRef")).containsEntry("kind", "StatefulSet")
            .containsEntry("name", "varpulis-worker");
        List<Object> triggers = listAt(scaled, "spec", "triggers");
        assertThat(triggers).hasSize(2);
        assertThat(mapAt(triggers.get(0), "metadata")).containsEntry("stream", "VARPULIS_ROUTING")
            .containsEntry("consumer", "route_detect_a")
            .containsEntry("account", "$G")
            .containsEntry("lagThreshold", "1000")
            .containsEntry("natsServerMonitoringEndpoint", "nats-headless.ops.svc.cluster.local:8222");
        assertThat(at(triggers.get(1), "type")).isEqualTo("nats-jetstream");
        assertThat(at(scaled, "spec", "advanced", "horizontalPodAutoscalerConfig", "behavior", "scaleDown", "policies",
                0, "value"))
            .isEqualTo(1);
        assertThat(mapAt(manifests.get("StatefulSet", "varpulis-worker"), "spec"))
            .as("the HPA owns the workers' replicas")
            .doesNotContainKey("replicas");
        assertThat(mapAt(manifests.get("StatefulSet", "varpulis-coordinator"), "spec")).containsKey("replicas");
    }

    @Test
    void kedaWithoutConsumersIsRefusedNamingTheValue() {
        assertThatThrownBy(() -> HELM.template().withName("varpulis").set("keda.enabled", "true").call())
            .hasMessageContaining("keda.consumers");
        assertThat(RenderedManifests.parse(HELM.template().withName("varpulis").call()).ofKind("ScaledObject"))
            .isEmpty();
    }

}
