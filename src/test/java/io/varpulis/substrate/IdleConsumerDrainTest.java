package io.varpulis.substrate;

import io.varpulis.delivery.OutputEmitter;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.transport.Consumption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A graceful stop waits for in-flight applies, not for the drain timeout: draining an
 * idle consumer returns as soon as its open pull ends.
 */
@BrokerTest
class IdleConsumerDrainTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    @Test
    void drainingAnIdleConsumerDoesNotWaitForTheWholeTimeout() throws Exception {
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            Consumption consumption = worker
                .ingress(new RouteEdge("idle", "_external", "detect"), (event, context) -> List.of(),
                        OutputEmitter.NONE)
                .start(worker.transport, worker.consumer());

            long started = System.nanoTime();
            consumption.drain(Duration.ofSeconds(20));

            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
        }
    }

}
