package io.varpulis.observation;

import io.micrometer.common.KeyValues;
import io.varpulis.observation.NatsObservationDocumentation.CommonKeys;
import io.varpulis.observation.NatsObservationDocumentation.DeliveryKeys;
import io.varpulis.observation.NatsObservationDocumentation.MessageKeys;
import io.varpulis.observation.NatsObservationDocumentation.ProcessKeys;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.transport.Delivery;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The default names and tags of a delivery processed: meter
 * {@code varpulis.nats.process}, span {@code process {destination}}, tags
 * {@code messaging.system=nats}, {@code messaging.operation.type=process},
 * {@code messaging.destination.name} (the consumer's filter subject as a template),
 * {@code messaging.consumer.group.name} (the durable), {@code error.type},
 * {@code varpulis.delivery.outcome} and {@code varpulis.delivery.park.reason}; subject,
 * message id, stream sequence and delivery attempt on the span only.
 */
public class DefaultNatsProcessObservationConvention implements NatsProcessObservationConvention {

    /** The shared instance. */
    public static final DefaultNatsProcessObservationConvention INSTANCE = new DefaultNatsProcessObservationConvention();

    /** The observation's (and so the meter's) name. */
    public static final String NAME = "varpulis.nats.process";

    // The span names by destination template: a string built per message was a few % of
    // observation's allocation.
    private final BoundedCache<String, String> names = new BoundedCache<>(destination -> "process " + destination);

    private final BoundedCache<Tags, KeyValues> cache = new BoundedCache<>(
            DefaultNatsProcessObservationConvention::build);

    // A delivery acked without error, by its consumer's durable: found without a key
    // object per message.
    private final Map<String, Acked> acked = new ConcurrentHashMap<>();

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(NatsProcessContext context) {
        return names.get(Destinations.of(context.consumer().filterSubject()));
    }

    /**
     * The low-cardinality key values, built once per consumer, outcome, park reason and
     * error type and kept (issue 32: built and sorted for every delivery, they were a
     * fifth of observation's cost).
     */
    @Override
    public KeyValues getLowCardinalityKeyValues(NatsProcessContext context) {
        if (!context.running()) {
            // Asked again when the observation stops, and only used then.
            return KeyValues.empty();
        }
        if (context.getError() == null && "acked".equals(context.outcome())) {
            return ackedKeyValues(context.consumer());
        }
        String error = DefaultNatsSendObservationConvention.errorType(context.getError());
        Tags key = new Tags(context.consumer().durable(), context.consumer().filterSubject(), context.outcome(),
                context.parkReason(), error);
        return cache.get(key);
    }

    /**
     * Those of an acked delivery: resolved once per consumer (its durable and filter
     * subject) and reused.
     */
    private KeyValues ackedKeyValues(ConsumerDeclaration consumer) {
        Acked known = acked.get(consumer.durable());
        if (known != null && known.filterSubject().equals(consumer.filterSubject())) {
            return known.keyValues();
        }
        KeyValues keyValues = cache.get(new Tags(consumer.durable(), consumer.filterSubject(), "acked", "none",
                DefaultNatsSendObservationConvention.errorType(null)));
        if (acked.size() < BoundedCache.MAX_CACHED) {
            acked.put(consumer.durable(), new Acked(consumer.filterSubject(), keyValues));
        }
        return keyValues;
    }

    private static KeyValues build(Tags tags) {
        return KeyValues.of(CommonKeys.MESSAGING_SYSTEM.withValue("nats"),
                CommonKeys.OPERATION_TYPE.withValue("process"),
                CommonKeys.DESTINATION_NAME.withValue(Destinations.of(tags.filterSubject())),
                CommonKeys.ERROR_TYPE.withValue(tags.error()),
                ProcessKeys.CONSUMER_GROUP_NAME.withValue(tags.durable()),
                ProcessKeys.DELIVERY_OUTCOME.withValue(tags.outcome()),
                ProcessKeys.PARK_REASON.withValue(tags.parkReason()));
    }

    /** Span tags: none for an unsampled delivery, which has no span. */
    @Override
    public KeyValues getHighCardinalityKeyValues(NatsProcessContext context) {
        if (!context.running()) {
            return KeyValues.empty();
        }
        if (context.unsampled()) {
            return KeyValues.empty();
        }
        Delivery delivery = context.delivery();
        return KeyValues.of(MessageKeys.SUBJECT.withValue(delivery.subject()),
                MessageKeys.MESSAGE_ID.withValue(delivery.messageId()),
                DeliveryKeys.STREAM_SEQUENCE.withValue(Long.toString(delivery.streamSequence())),
                DeliveryKeys.DELIVERY_ATTEMPT.withValue(Long.toString(delivery.attempt())));
    }

    /** The key values of an acked delivery of the consumer with that filter subject. */
    private record Acked(String filterSubject, KeyValues keyValues) {
    }

    /** What the low-cardinality key values of a delivery depend on. */
    private record Tags(String durable, String filterSubject, String outcome, String parkReason, String error) {
    }

}
