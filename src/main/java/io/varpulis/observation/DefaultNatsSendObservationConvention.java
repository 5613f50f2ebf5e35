package io.varpulis.observation;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.varpulis.observation.NatsObservationDocumentation.CommonKeys;
import io.varpulis.observation.NatsObservationDocumentation.MessageKeys;
import io.varpulis.observation.NatsObservationDocumentation.SendKeys;

/**
 * The default names and tags of a publish: meter {@code varpulis.nats.send}, span {@code send {destination}}, tags
 * {@code messaging.system=nats}, {@code messaging.operation.type=send}, {@code messaging.destination.name} (a
 * template), {@code error.type}; subject, message id and, on a replay, the parked trace id on the span only.
 */
public class DefaultNatsSendObservationConvention implements NatsSendObservationConvention {

    /** The shared instance. */
    public static final DefaultNatsSendObservationConvention INSTANCE = new DefaultNatsSendObservationConvention();

    /** The observation's (and so the meter's) name. */
    public static final String NAME = "varpulis.nats.send";

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(NatsSendContext context) {
        return "send " + Destinations.of(context.subject());
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(NatsSendContext context) {
        return KeyValues.of(CommonKeys.MESSAGING_SYSTEM.withValue("nats"),
                CommonKeys.OPERATION_TYPE.withValue("send"),
                CommonKeys.DESTINATION_NAME.withValue(Destinations.of(context.subject())),
                CommonKeys.ERROR_TYPE.withValue(errorType(context.getError())));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(NatsSendContext context) {
        KeyValues values = KeyValues.of(MessageKeys.SUBJECT.withValue(context.subject()));
        if (context.messageId() != null) {
            values = values.and(MessageKeys.MESSAGE_ID.withValue(context.messageId()));
        }
        if (context.parkedTraceId() != null) {
            values = values.and(KeyValue.of(SendKeys.PARKED_TRACE_ID, context.parkedTraceId()));
        }
        return values;
    }

    /**
     * @param error a failure, or {@code null}
     * @return its simple class name, or {@code none}
     */
    static String errorType(Throwable error) {
        return error == null ? "none" : error.getClass().getSimpleName();
    }
}
