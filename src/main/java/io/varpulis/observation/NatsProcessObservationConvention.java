package io.varpulis.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observation of a delivery processed, in the manner of Spring Kafka's
 * {@code KafkaListenerObservationConvention}: declare a bean of this type to replace
 * {@link DefaultNatsProcessObservationConvention}.
 */
public interface NatsProcessObservationConvention extends ObservationConvention<NatsProcessContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof NatsProcessContext;
    }

}
