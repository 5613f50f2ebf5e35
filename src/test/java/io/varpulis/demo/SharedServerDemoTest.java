package io.varpulis.demo;

import io.varpulis.VarpulisClusterApplication;
import io.varpulis.cluster.coordinator.ClusterQueries;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.TestCredentials;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code demo --nats-url} on a server where an operator's cluster already runs (the
 * default cluster name, no api-key, as the README's "Running a cluster" starts it): the
 * demo's nodes form their own cluster, {@value BruteForceDemo#CLUSTER}, so the operator's
 * coordinator neither registers the demo's workers nor places its group, and the demo
 * passes (a newcomer run found the operator's leader placing the demo's group, the demo's
 * coordinator never leading, and the run failing).
 */
@BrokerTest
class SharedServerDemoTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    @TempDir
    Path dir;

    @Test
    void theDemoKeepsToItsOwnClusterBesideAnOperatorsCluster() throws Exception {
        try (ConfigurableApplicationContext operators = new SpringApplicationBuilder(VarpulisClusterApplication.class)
            .properties("server.port=0", "server.address=127.0.0.1", "varpulis.nats.url=" + nats.url(),
                    "varpulis.nats.substrate=jetstream", "varpulis.cluster.role=coordinator",
                    "varpulis.cluster.coordinator-id=operators-coordinator", "spring.main.banner-mode=off",
                    "spring.security.user.password=" + TestCredentials.PASSWORD)
            .run()) {
            ClusterQueries coordinator = operators.getBean(ClusterQueries.class);
            await().atMost(Duration.ofSeconds(30)).until(coordinator::isLeader);

            int status = BruteForceDemo.run(new String[] { "--nats-url", nats.url(), "--kill", "none", "--rate", "2000",
                    "--year", "2026", "--alerts-out", dir.resolve("alerts.jsonl").toString() }, Map.of());

            assertThat(status).as("the demo passed on the shared server").isZero();
            assertThat(coordinator.workers()).as("the operator's cluster registered none of the demo's " + "workers")
                .isEmpty();
            assertThat(coordinator.group(BruteForceDemo.GROUP)).as("nor knows its group").isEmpty();
            assertThat(coordinator.otherClusters()).as("and says another cluster shares its account")
                .containsKey(BruteForceDemo.CLUSTER);
            assertThat(coordinator.isLeader()).as("still leads its own cluster").isTrue();
        }
    }

}
