package io.varpulis.container;

import io.varpulis.transport.Delivery;
import io.varpulis.transport.GivenUpMessage;
import io.varpulis.transport.ParkReason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.util.backoff.BackOffExecution;

import java.io.IOException;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * Parks what the server gave up on for one {@link DeliveryContainer} (its max-deliveries
 * advisories, SPEC section 9): each message read from its stream by its sequence, off the
 * client's threads, and settled as poison ({@code server_gave_up}). A stream that cannot
 * be read (the broker away) is tried again with back-off, for
 * {@value #GIVEN_UP_PATIENCE_MINUTES} minutes at most; what is still untried then, or
 * when the container closes, is logged at ERROR with its stream sequence and counted
 * stranded.
 */
final class GivenUpParks {

    /** How long a message the server gave up is tried to be parked, at most, min. */
    static final long GIVEN_UP_PATIENCE_MINUTES = 10;

    private static final Logger log = LoggerFactory.getLogger(GivenUpParks.class);

    private final ContainerParts parts;

    private final BiConsumer<DeliveryWork, Outcome> settle;

    /** Messages whose park is still being tried. */
    private final Set<GivenUpMessage> givenUp = ConcurrentHashMap.newKeySet();

    /**
     * @param parts the container's parts
     * @param settle settles a message read from its stream
     */
    GivenUpParks(ContainerParts parts, BiConsumer<DeliveryWork, Outcome> settle) {
        this.parts = parts;
        this.settle = settle;
    }

    /**
     * Reads the message the server gave up on from its stream, and parks it; the broker
     * away is waited out, for {@value #GIVEN_UP_PATIENCE_MINUTES} minutes at most.
     */
    void park(GivenUpMessage message) {
        givenUp.add(message);
        BackOffExecution waits = parts.runtime().givenUpBackOff().start();
        parts.runtime().executor().execute(() -> parkGivenUp(message, waits));
    }

    private void parkGivenUp(GivenUpMessage message, BackOffExecution waits) {
        if (!givenUp.contains(message)) {
            return;
        }
        Optional<Delivery> stored;
        try {
            stored = message.load();
        }
        catch (IOException | RuntimeException e) {
            long wait = waits.nextBackOff();
            if (wait == BackOffExecution.STOP || parts.state().closed()) {
                strandGivenUp(message, "it could not be read from its stream for " + GIVEN_UP_PATIENCE_MINUTES
                        + " minutes, or before its container closed (" + e.getMessage() + ")");
                return;
            }
            log.warn("{}: the server gave up on {}, which cannot be read yet ({}); trying again in {} ms", parts.unit(),
                    message, e.getMessage(), wait);
            CompletableFuture.delayedExecutor(wait, TimeUnit.MILLISECONDS, parts.runtime().executor())
                .execute(() -> parkGivenUp(message, waits));
            return;
        }
        givenUp.remove(message);
        if (stored.isEmpty()) {
            parts.meters().stranded();
            log.error("{}: the server gave up on {} without an ack, and the stream no longer holds it (its max_age "
                    + "passed, or it was deleted): it was neither applied nor parked", parts.unit(), message);
            return;
        }
        log.warn("{}: the server gave up on {} without an ack; parking it from the stream", parts.unit(), message);
        DeliveryWork work = new DeliveryWork(stored.get(), stored.get());
        settle.accept(work,
                Outcome.poison(ParkReason.SERVER_GAVE_UP,
                        new IllegalStateException("the server stopped delivering it after " + message.deliveries()
                                + " deliveries without an ack (durable " + message.durable() + ")")));
    }

    private void strandGivenUp(GivenUpMessage message, String why) {
        if (givenUp.remove(message)) {
            parts.meters().stranded();
            log.error(
                    "{}: the server gave up on {} without an ack, and it was not parked: {}; recover it by hand from "
                            + "stream {} sequence {}",
                    parts.unit(), message, why, message.stream(), message.streamSequence());
        }
    }

    /**
     * The container closed: a given-up message whose park is still being tried is
     * stranded, named with its sequence and counted, rather than tried by nobody.
     */
    void close() {
        for (GivenUpMessage message : givenUp) {
            strandGivenUp(message, "its container closed while its park was being tried");
        }
    }

}
