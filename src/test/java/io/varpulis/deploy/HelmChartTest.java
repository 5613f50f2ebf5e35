package io.varpulis.deploy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import static io.varpulis.deploy.RenderedManifests.container;
import static io.varpulis.deploy.RenderedManifests.env;
import static io.varpulis.deploy.RenderedManifests.hasEnv;
import static io.varpulis.deploy.Yamls.at;
import static io.varpulis.deploy.Yamls.listAt;
import static io.varpulis.deploy.Yamls.mapAt;
import static io.varpulis.deploy.Yamls.named;
import static io.varpulis.deploy.Yamls.stringAt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Helm chart in {@code helm/varpulis}, linted and rendered by the Helm engine itself
 * (helm-java ships it as a native library, so no helm binary or cluster is needed), and
 * the rendered manifests checked as Kubernetes objects.
 */
class HelmChartTest {

    private static final Path CHART = Path.of("helm/varpulis").toAbsolutePath();

    /**
     * Two coordinators, three workers, JetStream with 3 replicas, .creds and TLS from
     * existing Secrets.
     */
    private static final Path PRODUCTION_VALUES = Path
        .of("src/test/resources/deploy/two-coordinators-three-workers.yaml")
        .toAbsolutePath();

    /**
     * The release name; it contains the chart name, so resources are
     * "varpulis-coordinator", not "x-varpulis-...".
     */
    private static final String RELEASE = "varpulis";

    private static final String COORDINATORS = "varpulis-coordinator";

    private static final String WORKERS = "varpulis-worker";

    private static final Helm HELM = new Helm(CHART);

    @Test
    void lintPassesInStrictMode() {
        LintResult lint = HELM.lint().strict().call();

        assertThat(lint.isFailed()).as("helm lint --strict: %s", lint.getMessages()).isFalse();
        assertThat(lint.getMessages())
            .noneMatch(message -> message.contains("[WARNING]") || message.contains("[ERROR]"));
    }

    @Test
    void rendersTwoCoordinatorsAndThreeWorkersAsStatefulSets() {
        RenderedManifests manifests = render(production());

        assertThat(manifests.ofKind("StatefulSet")).hasSize(2);
        assertThat(at(manifests.get("StatefulSet", COORDINATORS), "spec", "replicas")).isEqualTo(2);
        assertThat(at(manifests.get("StatefulSet", WORKERS), "spec", "replicas")).isEqualTo(3);
        for (String statefulSet : List.of(COORDINATORS, WORKERS)) {
            Map<String, Object> workload = manifests.get("StatefulSet", statefulSet);
            Map<String, Object> governing = manifests.get("Service", stringAt(workload, "spec", "serviceName"));
            assertThat(at(governing, "spec", "clusterIP")).as("governing Service of %s is headless", statefulSet)
                .isEqualTo("None");
            assertSelects(governing, workload);
        }
    }

    @Test
    void coordinatorsAndWorkersTakeTheirIdsFromTheirPodNames() {
        RenderedManifests manifests = render(production());
        Map<String, Object> coordinator = container(manifests.get("StatefulSet", COORDINATORS));
        Map<String, Object> worker = container(manifests.get("StatefulSet", WORKERS));

        assertThat(at(env(coordinator, "VARPULIS_CLUSTER_ROLE"), "value")).isEqualTo("coordinator");
        assertThat(at(env(coordinator, "VARPULIS_COORDINATOR_ID"), "valueFrom", "fieldRef", "fieldPath"))
            .isEqualTo("metadata.name");
        assertThat(hasEnv(coordinator, "VARPULIS_WORKER_ID")).isFalse();

        assertThat(at(env(worker, "VARPULIS_CLUSTER_ROLE"), "value")).isEqualTo("worker");
        assertThat(at(env(worker, "VARPULIS_WORKER_ID"), "valueFrom", "fieldRef", "fieldPath"))
            .isEqualTo("metadata.name");
        assertThat(hasEnv(worker, "VARPULIS_COORDINATOR_ID")).isFalse();
    }

    @Test
    void probesUseSpringBootHealthGroupsSoANatsOutageNeverRestartsAPod() {
        RenderedManifests manifests = render(production());

        for (Map<String, Object> workload : manifests.ofKind("StatefulSet")) {
            Map<String, Object> container = container(workload);
            assertThat(at(container, "livenessProbe", "httpGet", "path")).isEqualTo("/actuator/health/liveness");
            assertThat(at(container, "startupProbe", "httpGet", "path")).isEqualTo("/actuator/health/liveness");
            assertThat(at(container, "readinessProbe", "httpGet", "path")).isEqualTo("/actuator/health/readiness");
            for (String probe : List.of("livenessProbe", "startupProbe", "readinessProbe")) {
                assertThat(at(container, probe, "httpGet", "port")).as("probes on the management port")
                    .isEqualTo("management");
            }
            int startupBudgetSeconds = (Integer) at(container, "startupProbe", "failureThreshold")
                    * (Integer) at(container, "startupProbe", "periodSeconds");
            assertThat(startupBudgetSeconds).as("startup probe outlasts the 30s NATS startup retry, twice")
                .isGreaterThanOrEqualTo(60);
            assertThat(named(listAt(container, "ports"), "http").get("containerPort")).isEqualTo(8080);
            assertThat(named(listAt(container, "ports"), "management").get("containerPort")).isEqualTo(8081);
            assertThat(at(env(container, "MANAGEMENT_SERVER_PORT"), "value")).isEqualTo("8081");
        }
    }

    @Test
    void defaultsAreJetStreamOnTheNatsServiceWithoutAuthentication() {
        RenderedManifests manifests = render(HELM.template().withName(RELEASE));

        assertThat(at(manifests.get("StatefulSet", COORDINATORS), "spec", "replicas")).as("one leads, one follows")
            .isEqualTo(2);
        assertThat(at(manifests.get("StatefulSet", WORKERS), "spec", "replicas")).isEqualTo(2);
        for (Map<String, Object> workload : manifests.ofKind("StatefulSet")) {
            Map<String, Object> container = container(workload);
            assertThat(at(env(container, "VARPULIS_NATS_SUBSTRATE"), "value")).isEqualTo("jetstream");
            assertThat(at(env(container, "VARPULIS_NATS_URL"), "value")).isEqualTo("nats://nats:4222");
            assertThat(at(env(container, "VARPULIS_NATS_JETSTREAM_REPLICAS"), "value")).isEqualTo("3");
            assertThat(listAt(container, "env"))
                .noneMatch(entry -> String.valueOf(entry).contains("VARPULIS_NATS_CREDENTIALS")
                        || String.valueOf(entry).contains("VARPULIS_NATS_TLS_"));
        }
        assertThat(manifests.ofKind("Secret")).isEmpty();
        assertThat(manifests.ofKind("ServiceMonitor")).isEmpty();
    }

    @Test
    void credentialsAndTlsFilesAreMountedFromTheOperatorsSecrets() {
        RenderedManifests manifests = render(production());

        for (Map<String, Object> workload : manifests.ofKind("StatefulSet")) {
            assertThat(mountedFile(workload, "VARPULIS_NATS_CREDENTIALS")).isEqualTo(
                    new SecretFile("varpulis-nats-creds", "varpulis.creds", "/etc/varpulis/nats/creds/varpulis.creds"));
            assertThat(mountedFile(workload, "VARPULIS_NATS_TLS_CAFILE"))
                .isEqualTo(new SecretFile("varpulis-nats-client-tls", "ca.crt", "/etc/varpulis/nats/tls/ca.crt"));
            assertThat(mountedFile(workload, "VARPULIS_NATS_TLS_CERTFILE"))
                .isEqualTo(new SecretFile("varpulis-nats-client-tls", "tls.crt", "/etc/varpulis/nats/tls/tls.crt"));
            assertThat(mountedFile(workload, "VARPULIS_NATS_TLS_KEYFILE"))
                .isEqualTo(new SecretFile("varpulis-nats-client-tls", "tls.key", "/etc/varpulis/nats/tls/tls.key"));
        }
        assertThat(manifests.ofKind("Secret")).as("the chart never copies an operator's Secret").isEmpty();
    }

    @Test
    void anNkeySeedIsMountedAsAFile() {
        RenderedManifests manifests = render(
                HELM.template().withName(RELEASE).set("auth.nkey.existingSecret", "varpulis-nkey"));

        assertThat(mountedFile(manifests.get("StatefulSet", WORKERS), "VARPULIS_NATS_NKEYSEEDFILE"))
            .isEqualTo(new SecretFile("varpulis-nkey", "user.nk", "/etc/varpulis/nats/nkey/user.nk"));
    }

    @Test
    void aTokenGivenAsAValueIsRenderedIntoASecretNotIntoThePodSpec() {
        RenderedManifests manifests = render(HELM.template().withName(RELEASE).set("auth.token.value", "s3cret-token"));

        Map<String, Object> secret = manifests.get("Secret", "varpulis-nats-token");
        String stored = new String(Base64.getDecoder().decode(stringAt(secret, "data", "token")),
                StandardCharsets.UTF_8);
        assertThat(stored).isEqualTo("s3cret-token");
        for (Map<String, Object> workload : manifests.ofKind("StatefulSet")) {
            Map<String, Object> token = env(container(workload), "VARPULIS_NATS_TOKEN");
            assertThat(at(token, "valueFrom", "secretKeyRef"))
                .isEqualTo(Map.of("name", "varpulis-nats-token", "key", "token"));
            assertThat(String.valueOf(workload)).doesNotContain("s3cret-token");
        }
    }

    @Test
    void userAndPasswordComeFromAnExistingSecret() {
        RenderedManifests manifests = render(
                HELM.template().withName(RELEASE).set("auth.userPassword.existingSecret", "varpulis-nats-user"));

        Map<String, Object> container = container(manifests.get("StatefulSet", COORDINATORS));
        assertThat(at(env(container, "VARPULIS_NATS_USERNAME"), "valueFrom", "secretKeyRef"))
            .isEqualTo(Map.of("name", "varpulis-nats-user", "key", "username"));
        assertThat(at(env(container, "VARPULIS_NATS_PASSWORD"), "valueFrom", "secretKeyRef"))
            .isEqualTo(Map.of("name", "varpulis-nats-user", "key", "password"));
    }

    @Test
    void twoAuthenticationMethodsAreRefusedAtRenderTime() {
        TemplateCommand both = HELM.template()
            .withName(RELEASE)
            .set("auth.credentials.existingSecret", "varpulis-nats-creds")
            .set("auth.token.existingSecret", "varpulis-nats-token");

        assertThatThrownBy(both::call).hasMessageContaining("set at most one NATS authentication method")
            .hasMessageContaining("auth.credentials, auth.token");
    }

    @Test
    void theConfigMapHoldsAValidApplicationYmlThatEveryPodReads() {
        RenderedManifests manifests = render(production());

        Map<String, Object> applicationYml = Yamls
            .parse(stringAt(manifests.get("ConfigMap", "varpulis-config"), "data", "application.yml"));
        assertThat(at(applicationYml, "server", "shutdown")).isEqualTo("graceful");
        assertThat(mapAt(applicationYml, "varpulis", "cluster")).containsEntry("heartbeat-interval", "5s")
            .containsEntry("heartbeat-timeout", "15s")
            .containsEntry("drain-timeout", "20s")
            .containsEntry("name", RELEASE)
            .containsEntry("leader-lease-ttl", "6s");
        assertThat(at(applicationYml, "varpulis", "nats", "startup-retry-timeout")).as("values.config merged in")
            .isEqualTo("60s");
        assertThat(at(applicationYml, "varpulis", "nats", "jetstream", "sync-check", "monitoring-urls"))
            .as("each NATS server's /varz, where the nodes read whether it syncs every write (issue 43)")
            .isEqualTo("http://nats-0.nats-headless:8222," + "http://nats-1.nats-headless:8222,"
                    + "http://nats-2.nats-headless:8222");

        for (Map<String, Object> workload : manifests.ofKind("StatefulSet")) {
            Map<String, Object> container = container(workload);
            assertThat(at(env(container, "SPRING_CONFIG_ADDITIONAL_LOCATION"), "value"))
                .isEqualTo("optional:file:/etc/varpulis/config/");
            assertThat(at(named(listAt(container, "volumeMounts"), "config"), "mountPath"))
                .isEqualTo("/etc/varpulis/config");
            assertThat(
                    at(named(listAt(workload, "spec", "template", "spec", "volumes"), "config"), "configMap", "name"))
                .isEqualTo("varpulis-config");
            assertThat(mapAt(workload, "spec", "template", "metadata", "annotations"))
                .as("pods roll when application.yml changes")
                .containsKey("checksum/config");
        }
    }

    @Test
    void everyRenderedDocumentIsANamedKubernetesObject() {
        for (TemplateCommand release : List.of(HELM.template().withName(RELEASE), production())) {
            RenderedManifests manifests = render(release);

            assertThat(manifests.objects()).isNotEmpty();
            for (Map<String, Object> object : manifests.objects()) {
                assertThat(stringAt(object, "apiVersion")).isNotBlank();
                assertThat(stringAt(object, "kind")).isNotBlank();
                assertThat(stringAt(object, "metadata", "name")).as("%s name is a DNS-1123 label", object.get("kind"))
                    .matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
            }
        }
    }

    @Test
    void theSchemaRejectsAnUnknownSubstrate() {
        assertThatThrownBy(() -> HELM.template().withName(RELEASE).set("substrate", "foo").call())
            .hasMessageContaining("/substrate")
            .hasMessageContaining("jetstream");
    }

    @Test
    void theSchemaRejectsAMisspelledKey() {
        assertThatThrownBy(() -> HELM.template().withName(RELEASE).set("substate", "core").call())
            .hasMessageContaining("substate");
    }

    @Test
    void theServiceMonitorScrapesEveryPodExactlyOnce() {
        RenderedManifests manifests = render(production());

        Map<String, Object> serviceMonitor = manifests.get("ServiceMonitor", "varpulis");
        assertThat(mapAt(serviceMonitor, "metadata", "labels")).containsEntry("release", "kube-prometheus-stack");
        Map<String, Object> endpoint = mapAt(serviceMonitor, "spec", "endpoints", 0);
        assertThat(endpoint).containsEntry("port", "management").containsEntry("path", "/actuator/prometheus");

        Map<String, Object> selector = mapAt(serviceMonitor, "spec", "selector", "matchLabels");
        List<String> scraped = manifests.ofKind("Service")
            .stream()
            .filter(service -> mapAt(service, "metadata", "labels").entrySet().containsAll(selector.entrySet()))
            .map(service -> stringAt(service, "metadata", "name"))
            .toList();
        assertThat(scraped).containsExactlyInAnyOrder("varpulis-coordinator-headless", "varpulis-worker-headless");
    }

    @Test
    void podsRunAsNonRootOnAReadOnlyRootFilesystem() {
        RenderedManifests manifests = render(production());

        for (Map<String, Object> workload : manifests.ofKind("StatefulSet")) {
            Map<String, Object> podSpec = mapAt(workload, "spec", "template", "spec");
            assertThat(mapAt(podSpec, "securityContext")).containsEntry("runAsNonRoot", true)
                .containsEntry("runAsUser", 10001);
            assertThat(podSpec).containsEntry("automountServiceAccountToken", false);
            Map<String, Object> container = container(workload);
            assertThat(mapAt(container, "securityContext")).containsEntry("readOnlyRootFilesystem", true)
                .containsEntry("allowPrivilegeEscalation", false);
            assertThat(at(named(listAt(container, "volumeMounts"), "tmp"), "mountPath")).isEqualTo("/tmp");
            assertThat(named(listAt(podSpec, "volumes"), "tmp")).containsKey("emptyDir");
        }
    }

    @Test
    void theTerminationGracePeriodCoversThePreStopPauseAndTheDrain() {
        RenderedManifests manifests = render(production());
        Map<String, Object> applicationYml = Yamls
            .parse(stringAt(manifests.get("ConfigMap", "varpulis-config"), "data", "application.yml"));
        Duration drain = springDuration(stringAt(applicationYml, "varpulis", "cluster", "drain-timeout"));

        for (Map<String, Object> workload : manifests.ofKind("StatefulSet")) {
            int grace = (Integer) at(workload, "spec", "template", "spec", "terminationGracePeriodSeconds");
            List<Object> preStop = listAt(container(workload), "lifecycle", "preStop", "exec", "command");
            assertThat(preStop.get(0)).isEqualTo("sleep");
            Duration beforeSigkill = Duration.ofSeconds(Long.parseLong((String) preStop.get(1))).plus(drain);
            assertThat(Duration.ofSeconds(grace)).isGreaterThan(beforeSigkill);
        }
    }

    @Test
    void theCoordinatorBudgetKeepsOneCoordinatorAndTheWorkerBudgetLetsOneGo() {
        RenderedManifests manifests = render(HELM.template().withName(RELEASE));

        Map<String, Object> coordinators = manifests.get("PodDisruptionBudget", COORDINATORS);
        assertThat(at(coordinators, "spec", "minAvailable")).as("a drain never takes the last leader candidate")
            .isEqualTo(1);
        assertThat(mapAt(coordinators, "spec")).doesNotContainKey("maxUnavailable");
        assertSelects(coordinators, manifests.get("StatefulSet", COORDINATORS));
        Map<String, Object> workers = manifests.get("PodDisruptionBudget", WORKERS);
        assertThat(at(workers, "spec", "maxUnavailable")).isEqualTo(1);
        assertThat(mapAt(workers, "spec")).doesNotContainKey("minAvailable");
        assertSelects(workers, manifests.get("StatefulSet", WORKERS));
    }

    @Test
    void aSingleCoordinatorsBudgetStillLetsANodeDrain() {
        RenderedManifests manifests = render(HELM.template().withName(RELEASE).set("coordinator.replicas", "1"));

        Map<String, Object> budget = manifests.get("PodDisruptionBudget", COORDINATORS);
        assertThat(at(budget, "spec", "maxUnavailable")).isEqualTo(1);
        assertThat(mapAt(budget, "spec")).doesNotContainKey("minAvailable");
    }

    @Test
    void theCoordinatorApiServiceSelectsCoordinatorsOnly() {
        RenderedManifests manifests = render(production());

        Map<String, Object> api = manifests.get("Service", COORDINATORS);
        assertThat(at(api, "spec", "ports", 0, "targetPort")).isEqualTo("http");
        assertSelects(api, manifests.get("StatefulSet", COORDINATORS));
        Map<String, Object> workerLabels = mapAt(manifests.get("StatefulSet", WORKERS), "spec", "template", "metadata",
                "labels");
        assertThat(workerLabels.entrySet().containsAll(mapAt(api, "spec", "selector").entrySet())).isFalse();
        assertThat(manifests.contains("Service", WORKERS)).as("workers are reached over NATS only").isFalse();
    }

    @Test
    void theInstallNotesNameEveryCoordinatorId() {
        String notes = HELM.install()
            .withName(RELEASE)
            .withValuesFile(PRODUCTION_VALUES)
            .dryRun()
            .clientOnly()
            .call()
            .getOutput();

        assertThat(notes).contains("varpulis-coordinator-0", "varpulis-coordinator-1", "varpulis-worker-2");
    }

    @Test
    void theDefaultImageIsTheProjectsReleaseVersion() throws Exception {
        String releaseVersion = ProjectModel.read().releaseVersion();
        Map<String, Object> chart = Yamls.parse(Files.readString(CHART.resolve("Chart.yaml")));

        assertThat(chart.get("appVersion")).isEqualTo(releaseVersion);
        assertThat(at(container(render(HELM.template().withName(RELEASE)).get("StatefulSet", WORKERS)), "image"))
            .isEqualTo("varpulis/varpulis-cluster:" + releaseVersion);
    }

    private static TemplateCommand production() {
        return HELM.template().withName(RELEASE).withValuesFile(PRODUCTION_VALUES);
    }

    private static RenderedManifests render(TemplateCommand command) {
        return RenderedManifests.parse(command.call());
    }

    /**
     * A file the node reads from a mounted Secret: which Secret, which key, and the path
     * the env var points at.
     */
    private record SecretFile(String secretName, String key, String path) {
    }

    /**
     * Follows env var {@code name} to the volume mounted at its directory, and that
     * volume's Secret item.
     */
    private static SecretFile mountedFile(Map<String, Object> workload, String name) {
        String path = stringAt(env(container(workload), name), "value");
        String directory = path.substring(0, path.lastIndexOf('/'));
        String fileName = path.substring(path.lastIndexOf('/') + 1);
        Map<String, Object> mount = listAt(container(workload), "volumeMounts").stream()
            .map(entry -> Yamls.asMap(entry, "volumeMount"))
            .filter(entry -> directory.equals(entry.get("mountPath")))
            .findFirst()
            .orElseThrow(() -> new AssertionError("nothing mounted at " + directory + " for " + name));
        assertThat(mount).containsEntry("readOnly", true);
        Map<String, Object> secret = mapAt(
                named(listAt(workload, "spec", "template", "spec", "volumes"), (String) mount.get("name")), "secret");
        Map<String, Object> item = listAt(secret, "items").stream()
            .map(entry -> Yamls.asMap(entry, "item"))
            .filter(entry -> fileName.equals(entry.get("path")))
            .findFirst()
            .orElseThrow(() -> new AssertionError(fileName + " is not an item of " + secret));
        return new SecretFile((String) secret.get("secretName"), (String) item.get("key"), path);
    }

    /**
     * Asserts that {@code selecting}'s selector (a Service's spec.selector or
     * spec.selector.matchLabels) picks the workload's pods.
     */
    @Test
    void theApiUserComesFromASecret_orFromAPasswordValueRenderedIntoOne_elseEveryNodeGeneratesItsOwn() {
        Map<String, Object> production = container(render(production()).get("StatefulSet", COORDINATORS));
        assertThat(at(env(production, "SPRING_SECURITY_USER_NAME"), "valueFrom", "secretKeyRef"))
            .isEqualTo(Map.of("name", "varpulis-api-admin", "key", "username"));
        assertThat(at(env(production, "SPRING_SECURITY_USER_PASSWORD"), "valueFrom", "secretKeyRef"))
            .isEqualTo(Map.of("name", "varpulis-api-admin", "key", "password"));
        assertThat(at(env(production, "SPRING_SECURITY_USER_ROLES"), "value")).isEqualTo("ADMIN");
        assertThat(render(production()).contains("Secret", "varpulis-api")).as("the operator's Secret is used as it is")
            .isFalse();

        RenderedManifests development = render(
                HELM.template().withName(RELEASE).set("security.user.password", "dev-pw"));
        Map<String, Object> secret = development.get("Secret", "varpulis-api");
        assertThat(secret).containsEntry("type", "kubernetes.io/basic-auth");
        assertThat(new String(Base64.getDecoder().decode(stringAt(secret, "data", "password")), StandardCharsets.UTF_8))
            .isEqualTo("dev-pw");
        for (Map<String, Object> workload : development.ofKind("StatefulSet")) {
            assertThat(at(env(container(workload), "SPRING_SECURITY_USER_PASSWORD"), "valueFrom", "secretKeyRef"))
                .isEqualTo(Map.of("name", "varpulis-api", "key", "password"));
            assertThat(String.valueOf(workload)).as("the password never in the pod spec").doesNotContain("dev-pw");
        }

        Map<String, Object> generated = container(
                render(HELM.template().withName(RELEASE)).get("StatefulSet", WORKERS));
        assertThat(hasEnv(generated, "SPRING_SECURITY_USER_PASSWORD")).as("Spring Boot generates and logs one")
            .isFalse();
        assertThatThrownBy(() -> HELM.template()
            .withName(RELEASE)
            .set("security.user.password", "x")
            .set("security.user.existingSecret", "y")
            .call()).hasMessageContaining("existingSecret or password");
    }

    @Test
    void anIdentityProviderReplacesTheApiUser() {
        RenderedManifests manifests = render(HELM.template()
            .withName(RELEASE)
            .set("security.jwt.issuerUri", "https://idp.example/realms/ops")
            .set("security.jwt.rolesClaim", "groups")
            .set("security.jwt.audiences", "varpulis")
            .set("security.jwt.principalClaim", "preferred_username"));

        assertThat(manifests.ofKind("Secret")).isEmpty();
        Map<String, Object> container = container(manifests.get("StatefulSet", COORDINATORS));
        assertThat(at(env(container, "SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_ISSUERURI"), "value"))
            .isEqualTo("https://idp.example/realms/ops");
        assertThat(at(env(container, "SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_AUTHORITIESCLAIMNAME"), "value"))
            .isEqualTo("groups");
        assertThat(at(env(container, "SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_AUDIENCES"), "value"))
            .isEqualTo("varpulis");
        assertThat(at(env(container, "SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_PRINCIPALCLAIMNAME"), "value"))
            .isEqualTo("preferred_username");
        assertThat(hasEnv(container, "SPRING_SECURITY_USER_PASSWORD")).isFalse();
    }

    @Test
    void prometheusScrapesTheManagementPortWithoutCredentials_andTheApiStaysOnHttp() {
        RenderedManifests manifests = render(production());

        for (Map<String, Object> workload : manifests.ofKind("StatefulSet")) {
            assertThat(at(env(container(workload), "VARPULIS_SECURITY_OPENPROMETHEUS"), "value")).isEqualTo("true");
        }
        for (String headless : List.of("varpulis-coordinator-headless", "varpulis-worker-headless")) {
            assertThat(named(listAt(manifests.get("Service", headless), "spec", "ports"), "management"))
                .containsEntry("port", 8081)
                .containsEntry("targetPort", "management");
        }
        Map<String, Object> api = manifests.get("Service", COORDINATORS);
        assertThat(listAt(api, "spec", "ports")).hasSize(1);
        assertThat(at(api, "spec", "ports", 0, "targetPort")).as("the API Service never exposes Actuator")
            .isEqualTo("http");
    }

    @Test
    void theNetworkPolicyLetsInOnlyTheReleasesPodsAndPrometheusOnTheManagementPort() {
        RenderedManifests manifests = render(
                HELM.template().withName(RELEASE).set("networkPolicy.prometheusNamespace", "observability"));

        Map<String, Object> policy = manifests.get("NetworkPolicy", "varpulis");
        assertThat(listAt(policy, "spec", "policyTypes")).containsExactly("Ingress");
        for (Map<String, Object> workload : manifests.ofKind("StatefulSet")) {
            Map<String, Object> podLabels = mapAt(workload, "spec", "template", "metadata", "labels");
            assertThat(podLabels.entrySet()).as("the policy selects %s", stringAt(workload, "metadata", "name"))
                .containsAll(mapAt(policy, "spec", "podSelector", "matchLabels").entrySet());
        }
        List<Object> ingress = listAt(policy, "spec", "ingress");
        assertThat(ingress).hasSize(2);
        Map<String, Object> ownPods = mapAt(policy, "spec", "ingress", 0, "from", 0, "podSelector", "matchLabels");
        assertThat(ownPods)
            .isEqualTo(Map.of("app.kubernetes.io/name", "varpulis", "app.kubernetes.io/instance", RELEASE));
        assertThat(mapAt(policy, "spec", "ingress", 1, "from", 0, "namespaceSelector", "matchLabels"))
            .isEqualTo(Map.of("kubernetes.io/metadata.name", "observability"));
        assertThat(listAt(policy, "spec", "ingress", 1, "ports"))
            .containsExactly(Map.of("port", "management", "protocol", "TCP"));

        assertThat(manifests.ofKind("NetworkPolicy")).as("no API peers, no API policy").hasSize(1);

        assertThat(
                render(HELM.template().withName(RELEASE).set("networkPolicy.enabled", "false")).ofKind("NetworkPolicy"))
            .isEmpty();
    }

    @Test
    void apiPeersReachTheCoordinatorsApiPortOnly_notTheWorkers() {
        RenderedManifests manifests = render(HELM.template()
            .withName(RELEASE)
            .set("networkPolicy.apiFrom[0].namespaceSelector.matchLabels.name", "ingress"));

        assertThat(listAt(manifests.get("NetworkPolicy", "varpulis"), "spec", "ingress")).as("the nodes' policy")
            .hasSize(2);
        Map<String, Object> api = manifests.get("NetworkPolicy", "varpulis-coordinator-api");
        assertThat(mapAt(api, "spec", "podSelector", "matchLabels")).isEqualTo(Map.of("app.kubernetes.io/name",
                "varpulis", "app.kubernetes.io/instance", RELEASE, "app.kubernetes.io/component", "coordinator"));
        assertThat(mapAt(api, "spec", "ingress", 0, "from", 0, "namespaceSelector", "matchLabels"))
            .isEqualTo(Map.of("name", "ingress"));
        assertThat(listAt(api, "spec", "ingress", 0, "ports"))
            .containsExactly(Map.of("port", "http", "protocol", "TCP"));
        Map<String, Object> workerLabels = mapAt(manifests.get("StatefulSet", WORKERS), "spec", "template", "metadata",
                "labels");
        assertThat(workerLabels).as("workers are not selected").containsEntry("app.kubernetes.io/component", "worker");
    }

    @Test
    void theNatsValuesPinA212ReleaseWithThreeJetStreamServers() throws Exception {
        Map<String, Object> values = Yamls.parse(Files.readString(Path.of("helm/nats-values.yaml")));
        assertThat(natsValuesImageTag()).matches("2\\.12\\.\\d+-alpine");
        assertThat(at(values, "config", "cluster", "replicas")).isEqualTo(3);
        assertThat(at(values, "config", "jetstream", "enabled")).isEqualTo(true);
    }

    @Test
    void theNatsValuesRecommendAnFsyncOfEveryWriteForProduction() throws Exception {
        String text = Files.readString(Path.of("helm/nats-values.yaml"));
        Map<String, Object> values = Yamls.parse(text);
        // The chart merges config.jetstream.merge into the server's jetstream block
        // (nats/nats 1.x).
        assertThat(at(values, "config", "jetstream", "merge", "sync_interval")).isEqualTo("always");
        assertThat(text).as("the values say why, and where its cost is measured")
            .contains("Jepsen")
            .contains("docs/RELIABILITY.md");
        assertThat(Files.readString(Path.of("docs/RELIABILITY.md"))).contains("sync_interval: always");
    }

    /**
     * @return the NATS image tag helm/nats-values.yaml pins for the official nats chart
     * @throws IOException when the file cannot be read
     */
    static String natsValuesImageTag() throws IOException {
        return String
            .valueOf(at(Yamls.parse(Files.readString(Path.of("helm/nats-values.yaml"))), "container", "image", "tag"));
    }

    private static void assertSelects(Map<String, Object> selecting, Map<String, Object> workload) {
        Map<String, Object> spec = mapAt(selecting, "spec");
        Map<String, Object> selector = "Service".equals(selecting.get("kind")) ? mapAt(spec, "selector")
                : mapAt(spec, "selector", "matchLabels");
        Map<String, Object> podLabels = mapAt(workload, "spec", "template", "metadata", "labels");
        assertThat(podLabels.entrySet())
            .as("%s %s selects the pods of %s", selecting.get("kind"), stringAt(selecting, "metadata", "name"),
                    stringAt(workload, "metadata", "name"))
            .containsAll(selector.entrySet());
    }

    /** The simple Spring Boot duration form the chart writes (20s, 2m). */
    private static Duration springDuration(String value) {
        return Duration.parse("PT" + value.toUpperCase());
    }

}
