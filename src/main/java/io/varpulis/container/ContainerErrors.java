package io.varpulis.container;

import io.varpulis.metrics.DeliveryMeters;
import io.varpulis.transport.Delivery;
import io.varpulis.support.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;

/**
 * What threw while one container handled its deliveries, outside what the settlement
 * already tells (an observation handler, the service's error handler, the settling
 * itself): counted per stage ({@code varpulis.consumer.errors{unit,stage}}) and logged at
 * WARN, at most once a minute per stage with how many were not logged in between, so a
 * handler that fails on every delivery is told, not flooded.
 */
public final class ContainerErrors {

    private static final Logger log = LoggerFactory.getLogger(ContainerErrors.class);

    private static final Duration LOG_INTERVAL = Duration.ofMinutes(1);

    private final String holder;

    private final DeliveryMeters meters;

    private final Map<ErrorStage, RateLimitedLog> logs = new EnumMap<>(ErrorStage.class);

    private volatile LastError last;

    /**
     * The last throw while a delivery was handled.
     *
     * @param at when
     * @param stage where
     * @param error what, as its {@code toString()}
     */
    public record LastError(Instant at, String stage, String error) {
    }

    /**
     * @param holder the container, as its logs name it
     * @param meters its unit's meters
     */
    ContainerErrors(String holder, DeliveryMeters meters) {
        this.holder = holder;
        this.meters = meters;
        for (ErrorStage stage : ErrorStage.values()) {
            logs.put(stage, new RateLimitedLog(LOG_INTERVAL));
        }
    }

    /**
     * Counts and logs a throw that did not fail the delivery by itself.
     * @param stage where it threw
     * @param delivery the delivery being handled
     * @param error what was thrown
     */
    void report(ErrorStage stage, Delivery delivery, Throwable error) {
        count(stage, error);
        logs.get(stage)
            .warn(log, holder + ": the " + stage.tag() + " threw while handling " + delivery + " (" + error + "); "
                    + consequence(stage), error);
    }

    /**
     * Counts a throw the settlement tells by itself (a failed apply, logged with its nak
     * or park).
     * @param stage where it threw
     * @param error what it threw
     */
    void count(ErrorStage stage, Throwable error) {
        meters.error(stage.tag());
        last = new LastError(Instant.now(), stage.tag(), String.valueOf(error));
    }

    /** Counts an apply that ran past its apply timeout. */
    void applyTimedOut() {
        meters.applyTimedOut();
    }

    /** Counts the container stopped by an error. */
    void stoppedByError() {
        meters.stoppedByError();
    }

    /**
     * @return the last throw, or {@code null}
     */
    LastError last() {
        return last;
    }

    private static String consequence(ErrorStage stage) {
        return switch (stage) {
            case OBSERVATION -> "the delivery is applied and settled without its observation";
            case ERROR_HANDLER ->
                "the default rule decides instead (nak after the back-off, park on the last " + "delivery)";
            case SETTLER -> "the delivery is left unsettled: the server redelivers it after ack_wait";
            default -> "the delivery is settled as a failure";
        };
    }

}
