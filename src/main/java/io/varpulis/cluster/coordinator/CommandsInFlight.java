package io.varpulis.cluster.coordinator;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The commands the leader sent lately, by key ({@code unit@worker@epoch} for a deploy,
 * {@code unit@worker@undeploy}, {@code worker@register}), with when: the same command is
 * not sent again within its period, which stops command storms (a worker that reports a
 * stale copy in every heartbeat would get an undeploy every heartbeat). Owned by the
 * {@link PlacementLoop}. Thread-safe.
 */
final class CommandsInFlight {

    private final Clock clock;

    private final Map<String, Instant> sent = new ConcurrentHashMap<>();

    /**
     * @param clock the coordinator's clock
     */
    CommandsInFlight(Clock clock) {
        this.clock = clock;
    }

    /**
     * @param key the command's key
     * @param period how long one such command holds back the next
     * @return whether none with this key was sent within the period; if so, this one is
     * recorded as sent now
     */
    boolean firstIn(String key, Duration period) {
        Instant now = clock.instant();
        boolean[] first = { false };
        sent.compute(key, (k, previous) -> {
            if (previous != null && previous.isAfter(now.minus(period))) {
                return previous;
            }
            first[0] = true;
            return now;
        });
        return first[0];
    }

    /**
     * @param key a command's key
     * @return whether it is recorded (sent, not answered yet)
     */
    boolean contains(String key) {
        return sent.containsKey(key);
    }

    /**
     * @param key a command that was answered (or failed): the next one may go at once
     */
    void answered(String key) {
        sent.remove(key);
    }

    /**
     * @param limit commands sent before this are forgotten
     */
    void forgetSentBefore(Instant limit) {
        sent.values().removeIf(at -> at.isBefore(limit));
    }

}
