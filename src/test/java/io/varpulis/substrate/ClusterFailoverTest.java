package io.varpulis.substrate;

import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The production topology (SPEC section 9): three clustered servers, R3 streams and R3
 * pipeline state, the routing stream's leader (which leads the state's bucket too) killed
 * with SIGKILL under load and restarted 15 s later. During the election publishes are
 * answered 503 no responders; the ingress waits them out with the deliveries kept in
 * progress, so no valid event reaches max_deliver or is parked, every event is applied
 * once in the state, and every output is stored.
 */
@BrokerTest
class ClusterFailoverTest {

    @RegisterExtension
    static final NatsClusterExtension cluster = NatsClusterExtension.ofThree();

    @Test
    void theRoutingStreamsLeaderKilledUnderLoad_nothingParked_everythingAppliedOnce_noMaxDeliverReached()
            throws Exception {
        int ticks = 6000;
        try (CountingRig rig = new CountingRig(cluster.url(), 3, Duration.ofSeconds(10))) {
            int leader = cluster.streamLeader(VarpulisJetStream.ROUTING_STREAM);
            // The state's bucket led by the same server, so that the state writes meet
            // the election too.
            for (int i = 0; i < 20 && cluster.streamLeader(rig.stateStream) != leader; i++) {
                rig.worker.connection.request("$JS.API.STREAM.LEADER.STEPDOWN." + rig.stateStream, new byte[0])
                    .get(5, TimeUnit.SECONDS);
                CountingRig.sleep(1000);
            }
            AtomicLong killedAt = new AtomicLong();
            CompletableFuture<Void> failover = CompletableFuture.runAsync(() -> {
                // While the pipeline works through a backlog: its outputs and state
                // writes meet the election.
                CountingRig.sleep(1500);
                killedAt.set(System.nanoTime());
                cluster.kill(leader);
                CountingRig.sleep(15_000);
                cluster.start(leader);
            });
            rig.tickAll(ticks, Duration.ofNanos(500_000));
            failover.get(60, TimeUnit.SECONDS);

            rig.awaitDrained(ticks, Duration.ofSeconds(180));
            System.out.printf("leader n%d killed: publishes stored again after %d ms; %s%n", leader + 1,
                    rig.storedAgainAfterMillis(killedAt.get()), rig.figures());
            assertThat(rig.sunk).containsExactlyInAnyOrderElementsOf(IntStream.rangeClosed(1, ticks).boxed().toList());
            assertThat(rig.total()).as("every tick counted once in the R3 state").isEqualTo(ticks);
            assertThat(rig.dlqDepth()).as("nothing parked").isZero();
            assertThat(rig.maxDeliveriesAdvisories).as("no delivery reached max_deliver: %s", rig.maxDeliveries)
                .hasValue(0);
        }
    }

}
