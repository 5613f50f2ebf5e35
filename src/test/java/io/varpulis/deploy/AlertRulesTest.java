package io.varpulis.deploy;

import com.marcnuri.helm.Helm;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static io.varpulis.deploy.Yamls.listAt;
import static io.varpulis.deploy.Yamls.mapAt;
import static io.varpulis.deploy.Yamls.stringAt;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The alert rules and docs/OPERATING.md never drift apart (SPEC section 15): every alert
 * has its section, with the same expression, and every section its alert; the chart
 * renders exactly the file's rules, each with a runbook link to its section.
 */
class AlertRulesTest {

    private static final Helm HELM = new Helm(Path.of("helm/varpulis").toAbsolutePath());

    @Test
    void everyAlertHasItsOperatingSection_withTheSameExpression_andEverySectionItsAlert() throws Exception {
        Map<String, Map<String, Object>> rules = AlertRules.inFile();
        Map<String, String> documented = AlertRules.documented();

        assertThat(documented.keySet()).as("### sections under ## Alerts in OPERATING.md")
            .containsExactlyElementsOf(rules.keySet());
        rules.forEach((name, rule) -> assertThat(AlertRules.normalized(documented.get(name)))
            .as("the expression OPERATING.md shows for %s", name)
            .isEqualTo(AlertRules.normalized((String) rule.get("expr"))));
    }

    @Test
    void everyAlertSaysWhatHappenedWhatToDo_andHowBadItIs() throws Exception {
        for (Map.Entry<String, Map<String, Object>> rule : AlertRules.inFile().entrySet()) {
            assertThat(rule.getKey()).startsWith("Varpulis");
            assertThat(stringAt(rule.getValue(), "labels", "severity")).as(rule.getKey())
                .isIn("critical", "warning", "info");
            assertThat(stringAt(rule.getValue(), "annotations", "summary")).as(rule.getKey()).isNotBlank();
            assertThat(stringAt(rule.getValue(), "annotations", "description")).as(rule.getKey())
                .hasSizeGreaterThan(60);
        }
    }

    @Test
    void theChartRendersTheFilesRules_eachWithItsRunbookAnchor_andTheOperatorsLabels() throws Exception {
        RenderedManifests manifests = RenderedManifests.parse(HELM.template()
            .withName("varpulis")
            .set("monitoring.prometheusRule.enabled", "true")
            .set("monitoring.prometheusRule.labels.release", "kube-prometheus-stack")
            .set("monitoring.runbookBaseUrl", "https://docs.example/OPERATING.md")
            .call());

        Map<String, Object> prometheusRule = manifests.get("PrometheusRule", "varpulis");
        assertThat(mapAt(prometheusRule, "metadata", "labels")).containsEntry("release", "kube-prometheus-stack");
        Map<String, Map<String, Object>> rendered = AlertRules.byName(listAt(prometheusRule, "spec", "groups"));
        Map<String, Map<String, Object>> source = AlertRules.inFile();
        assertThat(rendered.keySet()).containsExactlyElementsOf(source.keySet());
        rendered.forEach((name, rule) -> {
            assertThat(rule.get("expr")).isEqualTo(source.get(name).get("expr"));
            assertThat(rule.get("for")).isEqualTo(source.get(name).get("for"));
            assertThat(stringAt(rule, "annotations", "runbook_url"))
                .isEqualTo("https://docs.example/OPERATING.md#" + AlertRules.anchor(name));
        });
    }

    @Test
    void forOverrideShortensEveryWaitingAlert_andLeavesTheImmediateOnesImmediate() throws Exception {
        RenderedManifests manifests = RenderedManifests.parse(HELM.template()
            .withName("varpulis")
            .set("monitoring.prometheusRule.enabled", "true")
            .set("monitoring.prometheusRule.forOverride", "2s")
            .call());

        Map<String, Map<String, Object>> source = AlertRules.inFile();
        AlertRules.byName(listAt(manifests.get("PrometheusRule", "varpulis"), "spec", "groups"))
            .forEach((name, rule) -> assertThat(rule.get("for")).as(name)
                .isEqualTo(source.get(name).containsKey("for") ? "2s" : null));
    }

    @Test
    void noPrometheusRuleUnlessAskedFor() {
        List<Map<String, Object>> rules = RenderedManifests.parse(HELM.template().withName("varpulis").call())
            .ofKind("PrometheusRule");

        assertThat(rules).isEmpty();
    }

}
