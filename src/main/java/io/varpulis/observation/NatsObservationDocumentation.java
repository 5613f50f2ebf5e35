package io.varpulis.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The two observations of the substrate (SPEC section 14), named after OpenTelemetry's
 * messaging conventions: a producer observation around every publish
 * ({@code messaging.operation.type=send}) and a consumer observation around every
 * delivery processed ({@code process}), from its arrival to its ack, nak or park.
 * Heartbeats and pipeline state writes are not observed (noise).
 * <p>
 * Meters: Spring Boot's default meter handler times both as {@code varpulis.nats.send}
 * and {@code varpulis.nats.process} with the low-cardinality keys as tags; spans carry
 * the high-cardinality keys too.
 */
public enum NatsObservationDocumentation implements ObservationDocumentation {

    /** One publish: routed events, a template's sends, parks in the DLQ, replays. */
    SEND {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultNatsSendObservationConvention.class;
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return CommonKeys.values();
        }

        @Override
        public KeyName[] getHighCardinalityKeyNames() {
            return KeyName.merge(MessageKeys.values(), SendKeys.values());
        }
    },

    /**
     * One delivery processed by a route ingress or a listener container, until it is
     * settled.
     */
    PROCESS {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultNatsProcessObservationConvention.class;
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return KeyName.merge(CommonKeys.values(), ProcessKeys.values());
        }

        @Override
        public KeyName[] getHighCardinalityKeyNames() {
            return KeyName.merge(MessageKeys.values(), DeliveryKeys.values());
        }
    };

    /** Low-cardinality keys of both observations. */
    public enum CommonKeys implements KeyName {

        /** Always {@code nats} (the value NATS's own .NET client uses). */
        MESSAGING_SYSTEM("messaging.system"),
        /** {@code send} or {@code process}. */
        OPERATION_TYPE("messaging.operation.type"),
        /**
         * The subject as a template:
         * {@code varpulis.cluster.pipeline.{group}.{from}.{to}}, never ids.
         */
        DESTINATION_NAME("messaging.destination.name"),
        /** The failure's simple class name, or {@code none}. */
        ERROR_TYPE("error.type");

        private final String key;

        CommonKeys(String key) {
            this.key = key;
        }

        @Override
        public String asString() {
            return key;
        }

    }

    /** Low-cardinality keys of a delivery processed. */
    public enum ProcessKeys implements KeyName {

        /** The durable consumer. */
        CONSUMER_GROUP_NAME("messaging.consumer.group.name"),
        /**
         * {@code acked}, {@code nak}, {@code parked} or {@code left} (given up unsettled,
         * for redelivery).
         */
        DELIVERY_OUTCOME("varpulis.delivery.outcome"),
        /**
         * Why it was parked ({@code max_deliver}, {@code undecodable}, ...), or
         * {@code none}.
         */
        PARK_REASON("varpulis.delivery.park.reason");

        private final String key;

        ProcessKeys(String key) {
            this.key = key;
        }

        @Override
        public String asString() {
            return key;
        }

    }

    /** High-cardinality keys of both: on the span only, never on a meter. */
    public enum MessageKeys implements KeyName {

        /** The raw subject. */
        SUBJECT("messaging.nats.subject"),
        /**
         * The {@code Nats-Msg-Id}, or the delivery's stable id ({@code stream:sequence}).
         */
        MESSAGE_ID("messaging.message.id");

        private final String key;

        MessageKeys(String key) {
            this.key = key;
        }

        @Override
        public String asString() {
            return key;
        }

    }

    /** High-cardinality keys of a send. */
    public enum SendKeys implements KeyName {

        /**
         * For a replay from the DLQ console: the trace id of the delivery that parked the
         * event.
         */
        PARKED_TRACE_ID("varpulis.parked.trace.id");

        private final String key;

        SendKeys(String key) {
            this.key = key;
        }

        @Override
        public String asString() {
            return key;
        }

    }

    /** High-cardinality keys of a delivery. */
    public enum DeliveryKeys implements KeyName {

        /** The message's stream sequence (0 on core). */
        STREAM_SEQUENCE("messaging.nats.stream.sequence"),
        /** The delivery attempt, 1 for the first. */
        DELIVERY_ATTEMPT("messaging.nats.delivery.attempt");

        private final String key;

        DeliveryKeys(String key) {
            this.key = key;
        }

        @Override
        public String asString() {
            return key;
        }

    }

}
