package io.varpulis.jetstream;

import java.time.Duration;

/**
 * How long {@link LeaderReachReconnect} waits before reconnecting away from a server:
 * {@code reconnect-after}, doubled after each forced reconnect up to {@value #MAX_FACTOR}
 * times it, and back to {@code reconnect-after} once a check passes. A cluster down
 * everywhere then costs fewer and fewer reconnects (each one drops in-flight PubAcks and
 * pulls), while a node that found a good server reacts at full speed to the next
 * partition.
 */
final class ReconnectBackoff {

    /** The longest wait, as a multiple of {@code reconnect-after}. */
    static final int MAX_FACTOR = 8;

    private final Duration reconnectAfter;

    private int factor = 1;

    /**
     * @param reconnectAfter {@code varpulis.nats.jetstream.leader-reach.reconnect-after}
     */
    ReconnectBackoff(Duration reconnectAfter) {
        this.reconnectAfter = reconnectAfter;
    }

    /**
     * @return how long the server must fail to reach a leader before the next reconnect
     */
    Duration current() {
        return reconnectAfter.multipliedBy(factor);
    }

    /**
     * A forced reconnect happened: the next one waits twice as long, at most
     * {@value #MAX_FACTOR} times.
     */
    void reconnected() {
        factor = Math.min(factor * 2, MAX_FACTOR);
    }

    /** A check passed: the next reconnect waits {@code reconnect-after} again. */
    void passed() {
        factor = 1;
    }

}
