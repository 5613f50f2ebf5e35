package io.varpulis.autoconfigure;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.varpulis.jetstream.eviction.KeyValueEvictionLedger;
import io.varpulis.messaging.NatsListener;
import io.varpulis.messaging.NatsTemplate;
import io.varpulis.metrics.EvictionMeters;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A service's declared stream is watched the same way for its {@code @NatsListener}
 * (issue 43): a listener that holds its one delivery (max-ack-pending 1) while its
 * stream's max_age passes has the events it was never given counted on its consumer, unit
 * the listener, and named at ERROR; the one it held is its own (applied when it returns).
 * The service creates nothing on the server it did not declare: its ledger is in memory.
 */
@BrokerTest
@ExtendWith(OutputCaptureExtension.class)
class ServiceEvictionTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final int PUBLISHED = 11;

    static class SlowListener {

        final CountDownLatch release = new CountDownLatch(1);

        final CountDownLatch holding = new CountDownLatch(1);

        @NatsListener(id = "slow", subject = "events.>")
        void onEvent(String event) throws InterruptedException {
            holding.countDown();
            release.await(60, TimeUnit.SECONDS);
        }

    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class SlowService {

        @Bean
        SlowListener slowListener() {
            return new SlowListener();
        }

        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

    }

    @Test
    void eventsAListenerWasNeverGivenBeforeTheyAgedOut_areCountedOnItsConsumer(CapturedOutput output) {
        new ApplicationContextRunner().withUserConfiguration(SlowService.class)
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream",
                    "varpulis.nats.jetstream.streams.EVENTS.subjects=events.>",
                    "varpulis.nats.jetstream.streams.EVENTS.max-age=2s",
                    "varpulis.nats.jetstream.streams.EVENTS.duplicate-window=1s",
                    "varpulis.nats.jetstream.consumer.max-ack-pending=1",
                    "varpulis.nats.jetstream.consumer.batch-size=1", "varpulis.nats.jetstream.evictions.interval=500ms")
            .run(context -> {
                SlowListener listener = context.getBean(SlowListener.class);
                try {
                    NatsTemplate template = context.getBean(NatsTemplate.class);
                    for (int i = 0; i < PUBLISHED; i++) {
                        template.send("events.e", "e-" + i).get();
                    }
                    assertThat(listener.holding.await(30, TimeUnit.SECONDS)).isTrue();
                    JetStreamManagement jsm = context.getBean(Connection.class).jetStreamManagement();
                    await().atMost(Duration.ofSeconds(30))
                        .until(() -> jsm.getStreamInfo("EVENTS").getStreamState().getMsgCount() == 0);

                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    await().atMost(Duration.ofSeconds(30))
                        .untilAsserted(() -> assertThat(evicted(registry)).as("the 10 it was never given")
                            .isEqualTo(PUBLISHED - 1));
                    assertThat(output.getOut()).contains("stream EVENTS dropped")
                        .contains("of slow (durable slow) before they were consumed, stream sequence");
                    assertThat(jsm.getStreamNames()).as("nothing it did not declare")
                        .doesNotContain("KV_" + KeyValueEvictionLedger.BUCKET);
                }
                finally {
                    listener.release.countDown();
                }
            });
    }

    private static double evicted(MeterRegistry registry) {
        Counter counter = registry.find(EvictionMeters.EVICTED)
            .tags("stream", "EVENTS", "consumer", "slow", "unit", "slow")
            .counter();
        return counter == null ? 0 : counter.count();
    }

}
