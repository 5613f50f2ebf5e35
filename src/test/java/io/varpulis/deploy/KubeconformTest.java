package io.varpulis.deploy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import io.varpulis.test.ExternalTool;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chart's rendered manifests validate against the Kubernetes schemas and the CRDs'
 * schemas (PrometheusRule, ServiceMonitor, ScaledObject) with
 * {@code kubeconform -strict}: default values, the HA values, and every optional part on.
 * kubeconform and the schemas come from {@code scripts/install-kubeconform.sh} (the Go
 * module proxy only); a kind without a schema is an error, never skipped.
 */
class KubeconformTest {

    private static final Path CACHE = Path.of(System.getenv()
        .getOrDefault("VARPULIS_KUBECONFORM_CACHE", Path
            .of(System.getenv().getOrDefault("XDG_CACHE_HOME", System.getProperty("user.home") + "/.cache"), "varpulis",
                    "kubeconform")
            .toString()));

    private static final Helm HELM = new Helm(Path.of("helm/varpulis").toAbsolutePath());

    private static ExternalTool kubeconform;

    @BeforeAll
    static void findKubeconform() {
        kubeconform = ExternalTool.require("kubeconform", "VARPULIS_KUBECONFORM",
                List.of(CACHE.resolve("bin/kubeconform")),
                "run scripts/install-kubeconform.sh (it also writes the schemas)");
        assertThat(CACHE.resolve("schemas/prometheusrule-monitoring-v1.json"))
            .as("the schemas scripts/install-kubeconform.sh writes")
            .exists();
    }

    @Test
    void theDefaultValuesRenderValidManifests(@TempDir Path dir) throws Exception {
        assertValid(dir, HELM.template().withName("varpulis"));
    }

    @Test
    void theHaValuesRenderValidManifests(@TempDir Path dir) throws Exception {
        assertValid(dir, HELM.template()
            .withName("varpulis")
            .withValuesFile(Path.of("src/test/resources/deploy/two-coordinators-three-workers.yaml").toAbsolutePath()));
    }

    @Test
    void everyOptionalPartRendersValidManifests_theMonitoringCrdsIncluded(@TempDir Path dir) throws Exception {
        String output = assertValid(dir,
                HELM.template()
                    .withName("varpulis")
                    .withValuesFile(Path.of("src/test/resources/deploy/every-optional-part.yaml").toAbsolutePath()));

        assertThat(output).contains("PrometheusRule", "ScaledObject", "ServiceMonitor");
    }

    @Test
    void anObjectTheCrdRefusesIsReported(@TempDir Path dir) throws Exception {
        Path manifest = dir.resolve("bad.yaml");
        Files.writeString(manifest, """
                apiVersion: keda.sh/v1alpha1
                kind: ScaledObject
                metadata:
                  name: w
                spec:
                  scaleTargetRef:
                    name: w
                  minReplicaCount: two
                  triggers: []
                """);

        ExternalTool.Run run = validate(dir, manifest);

        assertThat(run.exitStatus()).as(run.output()).isNotZero();
        assertThat(run.output()).contains("minReplicaCount");
    }

    /**
     * Renders, validates, and returns kubeconform's verbose output (one line per object).
     */
    private static String assertValid(Path dir, TemplateCommand command) throws Exception {
        String rendered = command.call();
        Path manifests = dir.resolve("rendered.yaml");
        Files.writeString(manifests, rendered);
        long objects = RenderedManifests.parse(rendered).objects().size();

        ExternalTool.Run run = validate(dir, manifests);

        assertThat(run.exitStatus()).as(run.output()).isZero();
        assertThat(run.output()).as(run.output())
            .contains("Valid: " + objects + ",")
            .contains("Invalid: 0")
            .contains("Errors: 0")
            .contains("Skipped: 0");
        return run.output();
    }

    private static ExternalTool.Run validate(Path dir, Path manifests) throws Exception {
        return kubeconform.run(dir, "-strict", "-summary", "-verbose", "-schema-location",
                CACHE.resolve("schemas") + "/{{ .ResourceKind }}{{ .KindSuffix }}.json", manifests.toString());
    }

}
