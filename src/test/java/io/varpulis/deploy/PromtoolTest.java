package io.varpulis.deploy;

import com.marcnuri.helm.Helm;
import io.varpulis.test.ExternalTool;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static io.varpulis.deploy.Yamls.asMap;
import static io.varpulis.deploy.Yamls.listAt;
import static io.varpulis.deploy.Yamls.mapAt;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chart's alert rules checked and unit-tested by Prometheus' own {@code promtool}
 * (Debian's {@code prometheus} package): the rule file and the rendered PrometheusRule
 * are valid, and every alert fires (and stays quiet) at the times
 * {@code src/test/resources/monitoring/alerts-test.yaml} expects.
 */
class PromtoolTest {

    private static final Path UNIT_TEST = Path.of("src/test/resources/monitoring/alerts-test.yaml").toAbsolutePath();

    private static ExternalTool promtool;

    @BeforeAll
    static void findPromtool() {
        promtool = ExternalTool.require("promtool", "VARPULIS_PROMTOOL", List.of(),
                "apt-get install -y prometheus (Debian's package ships promtool)");
    }

    @Test
    void theRuleFileIsValidForPrometheus(@TempDir Path dir) throws Exception {
        ExternalTool.Run check = promtool.run(dir, "check", "rules", AlertRules.FILE.toString());

        assertThat(check.exitStatus()).as(check.output()).isZero();
        assertThat(check.output()).contains("SUCCESS: " + AlertRules.inFile().size() + " rules found");
    }

    @Test
    void theRenderedPrometheusRuleIsValidForPrometheus(@TempDir Path dir) throws Exception {
        RenderedManifests manifests = RenderedManifests
            .parse(new Helm(Path.of("helm/varpulis").toAbsolutePath()).template()
                .withName("varpulis")
                .set("monitoring.prometheusRule.enabled", "true")
                .call());
        Path rules = dir.resolve("rendered.yaml");
        Files.writeString(rules, yaml().dump(mapAt(manifests.get("PrometheusRule", "varpulis"), "spec")));

        ExternalTool.Run check = promtool.run(dir, "check", "rules", rules.toString());

        assertThat(check.exitStatus()).as(check.output()).isZero();
    }

    @Test
    void everyAlertPassesItsUnitTest(@TempDir Path dir) throws Exception {
        // The descriptions are long prose, so the unit test pins the summaries only: a
        // copy of the rules without them.
        Map<String, Object> rules = Yamls.parse(Files.readString(AlertRules.FILE));
        for (Object group : listAt(rules, "groups")) {
            for (Object rule : listAt(group, "rules")) {
                mapAt(rule, "annotations").remove("description");
            }
        }
        Files.writeString(dir.resolve("alerts.yaml"), yaml().dump(rules));
        Files.copy(UNIT_TEST, dir.resolve("alerts-test.yaml"));

        ExternalTool.Run test = promtool.run(dir, "test", "rules", "alerts-test.yaml");

        assertThat(test.exitStatus()).as(test.output()).isZero();
        assertThat(test.output()).contains("SUCCESS");
    }

    @Test
    void everyAlertHasAUnitTestThatSeesItFire() throws Exception {
        Set<String> firing = new TreeSet<>();
        for (Object test : listAt(Yamls.parse(Files.readString(UNIT_TEST)), "tests")) {
            for (Object expectation : listAt(test, "alert_rule_test")) {
                Map<String, Object> alertTest = asMap(expectation, "alert_rule_test");
                if (!listAt(alertTest, "exp_alerts").isEmpty()) {
                    firing.add((String) alertTest.get("alertname"));
                }
            }
        }

        assertThat(firing).containsExactlyInAnyOrderElementsOf(AlertRules.inFile().keySet());
    }

    private static Yaml yaml() {
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        return new Yaml(options);
    }

}
