package io.varpulis.observation;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.varpulis.observation.NatsObservationDocumentation.CommonKeys;
import io.varpulis.observation.NatsObservationDocumentation.MessageKeys;
import io.varpulis.observation.NatsObservationDocumentation.SendKeys;

/**
 * The default names and tags of a publish: meter {@code varpulis.nats.send}, span
 * {@code send {destination}}, tags {@code messaging.system=nats},
 * {@code messaging.operation.type=send}, {@code messaging.destination.name} (a template),
 * {@code error.type}; subject, message id and, on a replay, the parked trace id on the
 * span only.
 */
public class DefaultNatsSendObservationConvention implements NatsSendObservationConvention {

    /** The shared instance. */
    public static final DefaultNatsSendObservationConvention INSTANCE = new DefaultNatsSendObservationConvention();

    /** The observation's (and so the meter's) name. */
    public static final String NAME = "varpulis.nats.send";

    // The span names by destination template: a string built per message was a few % of
    // observation's allocation.
    private final BoundedCache<String, String> names = new BoundedCache<>(destination -> "send " + destination);

    private final BoundedCache<Tags, KeyValues> cache = new BoundedCache<>(DefaultNatsSendObservationConvention::build);

    // A publish that succeeded, by its subject: found without a key object per message.
    private final BoundedCache<String, KeyValues> succeeded = new BoundedCache<>(
            subject -> cache.get(new Tags(Destinations.of(subject), errorType(null))));

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(NatsSendContext context) {
        return names.get(Destinations.of(context.subject()));
    }

    /**
     * The low-cardinality key values, built once per destination template and error type
     * and kept (issue 32); those of a publish that succeeded found by its subject alone.
     */
    @Override
    public KeyValues getLowCardinalityKeyValues(NatsSendContext context) {
        if (!context.running()) {
            // Asked again when the observation stops, and only used then.
            return KeyValues.empty();
        }
        if (context.getError() == null) {
            return succeeded.get(context.subject());
        }
        String destination = Destinations.of(context.subject());
        String error = errorType(context.getError());
        Tags key = new Tags(destination, error);
        return cache.get(key);
    }

    private static KeyValues build(Tags tags) {
        return KeyValues.of(CommonKeys.MESSAGING_SYSTEM.withValue("nats"), CommonKeys.OPERATION_TYPE.withValue("send"),
                CommonKeys.DESTINATION_NAME.withValue(tags.destination()),
                CommonKeys.ERROR_TYPE.withValue(tags.error()));
    }

    /** Span tags: none for a publish no sampled span records. */
    @Override
    public KeyValues getHighCardinalityKeyValues(NatsSendContext context) {
        if (!context.running()) {
            return KeyValues.empty();
        }
        if (context.untraced()) {
            return KeyValues.empty();
        }
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

    /** What the low-cardinality key values of a publish depend on. */
    private record Tags(String destination, String error) {
    }

}
