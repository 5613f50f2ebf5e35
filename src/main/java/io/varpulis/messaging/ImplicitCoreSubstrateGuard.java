package io.varpulis.messaging;

import io.varpulis.nats.NatsStartupException;
import io.varpulis.nats.Substrate;
import org.springframework.beans.factory.SmartInitializingSingleton;

import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

/**
 * Refuses to start a service that declares {@link NatsListener}s or streams while
 * {@code varpulis.nats.substrate} was left unset (SPEC section 13: never silent
 * fire-and-forget). The default, core, is what ADR-007 requires of a cluster node, whose
 * events are not durable unless an operator asks (a node declares no listener, and its
 * streams only on jetstream); for a service, a listener on core runs once per message
 * with no stream, no redelivery and no DLQ, which a team that declared streams did not
 * mean. Saying {@code core} explicitly keeps it.
 * <p>
 * Checked once every singleton exists (the listeners are found then), before any listener
 * starts.
 */
public class ImplicitCoreSubstrateGuard implements SmartInitializingSingleton {

    /** The property a service sets to choose. */
    public static final String PROPERTY = "varpulis.nats.substrate";

    private final Substrate substrate;

    private final boolean substrateConfigured;

    private final NatsListenerAnnotationBeanPostProcessor listeners;

    private final Supplier<Collection<String>> streams;

    /**
     * @param substrate the substrate in use
     * @param substrateConfigured whether {@value #PROPERTY} (or env
     * {@code VARPULIS_NATS_SUBSTRATE}) was set
     * @param listeners the {@link NatsListener} methods found
     * @param streams the names of the streams the application declares, asked once every
     * singleton exists ({@code varpulis.nats.jetstream.streams.*},
     * {@code StreamDeclaration} beans)
     */
    public ImplicitCoreSubstrateGuard(Substrate substrate, boolean substrateConfigured,
            NatsListenerAnnotationBeanPostProcessor listeners, Supplier<Collection<String>> streams) {
        this.substrate = substrate;
        this.substrateConfigured = substrateConfigured;
        this.listeners = listeners;
        this.streams = streams;
    }

    /**
     * @throws NatsStartupException naming {@value #PROPERTY}, the listeners and streams
     * declared and both fixes, when a service declares listeners or streams on the
     * substrate it did not choose
     */
    @Override
    public void afterSingletonsInstantiated() {
        if (substrateConfigured || substrate != Substrate.CORE) {
            return;
        }
        List<String> ids = listeners.listeners().stream().map(found -> found.annotation().id()).toList();
        Collection<String> declared = streams.get();
        if (ids.isEmpty() && declared.isEmpty()) {
            return;
        }
        String what = (ids.isEmpty() ? "" : "@NatsListener " + String.join(", ", ids))
                + (ids.isEmpty() || declared.isEmpty() ? "" : " and ")
                + (declared.isEmpty() ? "" : "stream " + String.join(", ", declared));
        throw new NatsStartupException("This service declares " + what + " but leaves " + PROPERTY + " unset: its "
                + "default, core, runs listeners fire-and-forget (no stream, no redelivery, no DLQ: an event a "
                + "listener fails on, or that arrives while the service is down, is lost) and creates no stream.",
                "set " + PROPERTY + "=jetstream (env VARPULIS_NATS_SUBSTRATE=jetstream, and nats-server -js) for "
                        + "durable listeners, or " + PROPERTY + "=core to run them fire-and-forget knowingly.",
                null);
    }

}
