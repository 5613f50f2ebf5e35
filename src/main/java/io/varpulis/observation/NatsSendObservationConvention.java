package io.varpulis.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observation of a publish, in the manner of Spring Kafka's
 * {@code KafkaTemplateObservationConvention}: declare a bean of this type to replace
 * {@link DefaultNatsSendObservationConvention}.
 */
public interface NatsSendObservationConvention extends ObservationConvention<NatsSendContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof NatsSendContext;
    }

}
