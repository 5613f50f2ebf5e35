package io.varpulis.substrate;

import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsClusterExtension;
import io.varpulis.transport.PublishReceipt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The production topology (SPEC section 9): three clustered servers, R3 streams and R3 pipeline state, the routing
 * stream's leader killed with SIGKILL under load and restarted 15 s later. During the election publishes are answered
 * 503 no responders; the ingress waits them out with the deliveries kept in progress, so no valid event reaches
 * max_deliver or is parked, every event is applied once in the state, and every output is stored.
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
            AtomicLong killedAt = new AtomicLong();
            AtomicLong firstStoredAfterKill = new AtomicLong();
            List<CompletableFuture<PublishReceipt>> stored = new ArrayList<>();
            CompletableFuture<Void> failover = CompletableFuture.runAsync(() -> {
                // While the pipeline works through a backlog: its outputs and state writes meet the election.
                sleep(1500);
                killedAt.set(System.nanoTime());
                cluster.kill(leader);
                sleep(15_000);
                cluster.start(leader);
            });
            long started = System.nanoTime();
            for (int n = 1; n <= ticks; n++) {
                long sent = System.nanoTime();
                stored.add(rig.tick(n).whenComplete((receipt, error) -> {
                    if (error == null && killedAt.get() != 0 && sent > killedAt.get()) {
                        firstStoredAfterKill.compareAndSet(0, System.nanoTime());
                    }
                }));
                long wait = started + n * 500_000L - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
            }
            failover.get(60, TimeUnit.SECONDS);
            CompletableFuture.allOf(stored.toArray(CompletableFuture[]::new)).get(180, TimeUnit.SECONDS);

            await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofSeconds(1))
                    .until(() -> rig.sunk.size() >= ticks && rig.consumer(CountingRig.INPUT).getNumAckPending() == 0
                            && rig.consumer(CountingRig.INPUT).getNumPending() == 0
                            && rig.consumer(CountingRig.OUTPUT).getNumAckPending() == 0);
            System.out.printf("leader n%d killed: publishes stored again after %d ms; redelivered input=%d sink=%d; "
                            + "broker retries=%.0f; parked=%s%n", leader + 1,
                    (firstStoredAfterKill.get() - killedAt.get()) / 1_000_000,
                    rig.consumer(CountingRig.INPUT).getRedelivered(), rig.consumer(CountingRig.OUTPUT).getRedelivered(),
                    rig.worker.metrics.count("varpulis.events.retried", "pipeline", "count"), rig.parked());
            assertThat(rig.sunk).containsExactlyInAnyOrderElementsOf(IntStream.rangeClosed(1, ticks).boxed().toList());
            assertThat(rig.total()).as("every tick counted once in the R3 state").isEqualTo(ticks);
            assertThat(rig.dlqDepth()).as("nothing parked").isZero();
            assertThat(rig.maxDeliveriesAdvisories).as("no delivery reached max_deliver").hasValue(0);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
