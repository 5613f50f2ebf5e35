package io.varpulis.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.marcnuri.helm.Helm;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static io.varpulis.deploy.Yamls.mapAt;
import static io.varpulis.deploy.Yamls.stringAt;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chart's Grafana dashboard and KEDA scaling, rendered by the Helm engine (SPEC section 15).
 */
class MonitoringChartTest {

    private static final Helm HELM = new Helm(Path.of("helm/varpulis").toAbsolutePath());

    @Test
    void theDashboardIsAConfigMapTheGrafanaSidecarLoads_withTheFileAsItIs() throws Exception {
        RenderedManifests manifests = RenderedManifests.parse(HELM.template().withName("varpulis")
                .set("monitoring.dashboard.enabled", "true").set("monitoring.dashboard.folder", "Streaming")
                .set("monitoring.dashboard.labels.team", "ops").call());

        Map<String, Object> configMap = manifests.get("ConfigMap", "varpulis-dashboard");
        assertThat(mapAt(configMap, "metadata", "labels")).containsEntry("grafana_dashboard", "1")
                .containsEntry("team", "ops");
        assertThat(mapAt(configMap, "metadata", "annotations")).containsEntry("grafana_folder", "Streaming");
        String json = stringAt(configMap, "data", "varpulis.json");
        assertThat(new ObjectMapper().readTree(json)).isEqualTo(new ObjectMapper().readTree(Files.readString(Dashboard.FILE)));
        assertThat(RenderedManifests.parse(HELM.template().withName("varpulis").call()).contains("ConfigMap",
                "varpulis-dashboard")).as("off unless asked for").isFalse();
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
}
