package io.varpulis.observation;

import io.micrometer.common.KeyValues;
import io.varpulis.observation.NatsObservationDocumentation.CommonKeys;
import io.varpulis.observation.NatsObservationDocumentation.DeliveryKeys;
import io.varpulis.observation.NatsObservationDocumentation.MessageKeys;
import io.varpulis.observation.NatsObservationDocumentation.ProcessKeys;
import io.varpulis.transport.Delivery;

/**
 * The default names and tags of a delivery processed: meter {@code varpulis.nats.process}, span
 * {@code process {destination}}, tags {@code messaging.system=nats}, {@code messaging.operation.type=process},
 * {@code messaging.destination.name} (the consumer's filter subject as a template),
 * {@code messaging.consumer.group.name} (the durable), {@code error.type}, {@code varpulis.delivery.outcome} and
 * {@code varpulis.delivery.park.reason}; subject, message id, stream sequence and delivery attempt on the span only.
 */
public class DefaultNatsProcessObservationConvention implements NatsProcessObservationConvention {

    /** The shared instance. */
    public static final DefaultNatsProcessObservationConvention INSTANCE =
            new DefaultNatsProcessObservationConvention();

    /** The observation's (and so the meter's) name. */
    public static final String NAME = "varpulis.nats.process";

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(NatsProcessContext context) {
        return "process " + Destinations.of(context.consumer().filterSubject());
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(NatsProcessContext context) {
        return KeyValues.of(CommonKeys.MESSAGING_SYSTEM.withValue("nats"),
                CommonKeys.OPERATION_TYPE.withValue("process"),
                CommonKeys.DESTINATION_NAME.withValue(Destinations.of(context.consumer().filterSubject())),
                CommonKeys.ERROR_TYPE.withValue(DefaultNatsSendObservationConvention.errorType(context.getError())),
                ProcessKeys.CONSUMER_GROUP_NAME.withValue(context.consumer().durable()),
                ProcessKeys.DELIVERY_OUTCOME.withValue(context.outcome()),
                ProcessKeys.PARK_REASON.withValue(context.parkReason()));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(NatsProcessContext context) {
        Delivery delivery = context.delivery();
        return KeyValues.of(MessageKeys.SUBJECT.withValue(delivery.subject()),
                MessageKeys.MESSAGE_ID.withValue(delivery.messageId()),
                DeliveryKeys.STREAM_SEQUENCE.withValue(Long.toString(delivery.streamSequence())),
                DeliveryKeys.DELIVERY_ATTEMPT.withValue(Long.toString(delivery.attempt())));
    }
}
