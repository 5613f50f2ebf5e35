package io.varpulis.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.varpulis.transport.ParkReason;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The counters the chart's alerts take {@code increase} or {@code rate} of exist at 0
 * before their first event, so Prometheus sees that first event as an increase (a counter
 * that appears at 1 shows none).
 */
class SubstrateMetricsTest {

    @Test
    void aPipelinesRedeliveryParkStrandingAndFencingCountersExistAtZeroFromItsFirstApply() {
        MeterRegistry registry = new SimpleMeterRegistry();
        SubstrateMetrics metrics = new SubstrateMetrics(registry);

        metrics.applies("detect", "3");

        assertThat(registry.get("varpulis.events.redelivered")
            .tags("pipeline", "detect", "partition", "3")
            .counter()
            .count()).isZero();
        assertThat(registry.get("varpulis.state.fenced").tags("pipeline", "detect", "partition", "3").counter().count())
            .isZero();
        assertThat(registry.get("varpulis.events.stranded").tags("unit", "detect").counter().count()).isZero();
        for (String reason : SubstrateMetrics.PARK_REASONS) {
            assertThat(
                    registry.get("varpulis.events.parked").tags("unit", "detect", "reason", reason).counter().count())
                .isZero();
        }
        assertThat(registry.get("varpulis.heartbeats.stale").counter().count()).isZero();
    }

    @Test
    void theParkReasonsAreTheDeathEnvelopesReasons() {
        assertThat(SubstrateMetrics.PARK_REASONS)
            .containsExactlyInAnyOrderElementsOf(Arrays.stream(ParkReason.values()).map(ParkReason::tag).toList());
    }

}
