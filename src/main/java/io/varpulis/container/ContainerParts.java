package io.varpulis.container;

import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.metrics.DeliveryMeters;

/**
 * What the parts of one {@link DeliveryContainer} share: its consumer and unit, its
 * meters, its state, the deliveries it holds, its error count, and what every container
 * of the process shares.
 *
 * @param consumer the durable consumer
 * @param unit the pipeline, listener or {@code coordinator:{id}}: the DLQ unit, the
 * meters' tag
 * @param settings its concurrency, back-off, apply timeout
 * @param meters the unit's meters
 * @param state whether it still applies what it receives
 * @param held the deliveries it holds
 * @param errors what threw while its deliveries were handled
 * @param runtime the transport, the parker, the threads
 */
record ContainerParts(ConsumerDeclaration consumer, String unit, ContainerSettings settings, DeliveryMeters meters,
        ContainerState state, HeldDeliveries held, ContainerErrors errors, ContainerRuntime runtime) {
}
