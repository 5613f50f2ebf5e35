package io.varpulis.observation;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationFilter;
import io.micrometer.observation.ObservationPredicate;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link UntracedObservations}: a message no span records is timed as its Observation
 * would have been, with the application's convention bean (a retag), filters and
 * predicates; without a broker.
 */
class UntracedObservationsTest {

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    private final ObservationFilter region = context -> context.addLowCardinalityKeyValue(KeyValue.of("region", "eu"));

    private final ObservationPredicate offForHealth = (name,
            context) -> !(context instanceof NatsSendContext send && send.subject().startsWith("health."));

    private final UntracedObservations untraced = new UntracedObservations(
            new NatsMeterObservationHandler(meters, false), List.of(offForHealth), List.of(region), List.of());

    /** What a service's convention bean does: another name, and a tag of its own. */
    private final NatsSendObservationConvention retagged = new DefaultNatsSendObservationConvention() {
        @Override
        public String getName() {
            return "orders.sent";
        }

        @Override
        public KeyValues getLowCardinalityKeyValues(NatsSendContext context) {
            return super.getLowCardinalityKeyValues(context).and("tenant", "acme");
        }
    };

    @Test
    void aConventionBeanRetagsTheTimer_filtersApply_andAFailureIsTaggedWithItsType() {
        for (int i = 0; i < 3; i++) {
            send("svc.orders", null);
        }
        send("svc.orders", new IllegalStateException("refused"));

        assertThat(meters.find(DefaultNatsSendObservationConvention.NAME).timers()).isEmpty();
        Timer succeeded = meters.find("orders.sent").tag("error", "none").timer();
        assertThat(succeeded).isNotNull();
        assertThat(succeeded.count()).as("each stop counted, the timer found again by its key values").isEqualTo(3);
        assertThat(succeeded.getId().getTag("tenant")).isEqualTo("acme");
        assertThat(succeeded.getId().getTag("region")).as("the filter's key value").isEqualTo("eu");
        assertThat(succeeded.getId().getTag("messaging.destination.name")).isEqualTo("svc.orders");
        Timer failed = meters.find("orders.sent").tag("error", "IllegalStateException").timer();
        assertThat(failed).isNotNull();
        assertThat(failed.count()).isOne();
        assertThat(failed.getId().getTag("error.type")).isEqualTo("IllegalStateException");
    }

    @Test
    void aPredicateTurnsItOff() {
        NatsSendContext context = new NatsSendContext("health.ping", null, null, true);
        assertThat(untraced.convention(context, retagged, DefaultNatsSendObservationConvention.INSTANCE)).isNull();
    }

    @Test
    void withoutAConventionBeanTheDefaultNamesIt() {
        NatsSendContext context = new NatsSendContext("svc.orders", null, null, true);
        assertThat(untraced.convention(context, null, DefaultNatsSendObservationConvention.INSTANCE))
            .isSameAs(DefaultNatsSendObservationConvention.INSTANCE);
        assertThat(context.getName()).isEqualTo(DefaultNatsSendObservationConvention.NAME);
    }

    private void send(String subject, Throwable error) {
        NatsSendContext context = new NatsSendContext(subject, null, null, true);
        ObservationConvention<NatsSendContext> convention = untraced.convention(context, retagged,
                DefaultNatsSendObservationConvention.INSTANCE);
        context.running(true);
        untraced.start(context);
        if (error != null) {
            context.setError(error);
        }
        untraced.stop(context, convention);
    }

}
