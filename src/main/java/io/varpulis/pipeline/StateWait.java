package io.varpulis.pipeline;

import io.varpulis.transport.PublishException;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * What one state's writer has waited for since its write chain last moved (SPEC section
 * 20, issue 41): the answers its writes got instead of a PubAck ("in process", none in
 * time, no server) and what the bucket's leader was last found holding, so that a writer
 * that waits says so, once, at WARN after {@code warnAfter}, and says when its writes are
 * confirmed again. A writer waits without sending again what may still land: a write goes
 * again only once a look-up finds the leader lacking it. Thread-safe.
 */
final class StateWait {

    /**
     * How long a state's writes may go unconfirmed before its writer says what it waits
     * for: longer than an election (seconds) and than a slow leader's gap between two
     * stored writes, shorter than the deliveries' ack_wait (30 s by default) after which
     * the container reports its stall.
     */
    static final Duration WARN_AFTER = Duration.ofSeconds(10);

    /** {@code JSStreamDuplicateMessageConflict}: the message id is in process. */
    static final int IN_PROCESS = 10158;

    private final long warnAfterNanos;

    private final Map<String, Integer> answers = new TreeMap<>();

    private String leader = "not looked up yet";

    private boolean warned;

    private long waitStarted;

    /**
     * @param warnAfter how long writes may go unconfirmed before the WARN
     */
    StateWait(Duration warnAfter) {
        this.warnAfterNanos = warnAfter.toNanos();
    }

    /**
     * A write's copy was answered without a PubAck.
     * @param error the publish's failure
     */
    synchronized void answered(Throwable error) {
        answers.merge(kind(error), 1, Integer::sum);
    }

    /**
     * @param what what a look-up of the bucket's leader found (its last sequence, or that
     * none answered)
     */
    synchronized void lookedUp(String what) {
        leader = what;
    }

    /**
     * Writes were confirmed: the wait is over.
     * @return how long the wait lasted, ns, when the writer had said it was waiting (then
     * it says the wait ended); else empty
     */
    synchronized OptionalLong moved() {
        OptionalLong said = warned ? OptionalLong.of(System.nanoTime() - waitStarted) : OptionalLong.empty();
        answers.clear();
        leader = "not looked up yet";
        warned = false;
        return said;
    }

    /**
     * @param waitingNanos how long the chain's oldest write has waited while none was
     * confirmed
     * @return the WARN's text once the wait passed the bound, once per wait
     */
    synchronized Optional<String> due(long waitingNanos) {
        if (warned || waitingNanos < warnAfterNanos) {
            return Optional.empty();
        }
        warned = true;
        waitStarted = System.nanoTime() - waitingNanos;
        return Optional.of("answers since the last confirmed write "
                + (answers.isEmpty() ? "none (no PubAck yet)" : answers.toString()) + "; the leader: " + leader);
    }

    private static String kind(Throwable error) {
        PublishException publish = PublishException.find(error).orElse(null);
        if (publish == null) {
            return "other failure";
        }
        if (publish.apiErrorCode() == IN_PROCESS) {
            return "in process (10158)";
        }
        if (publish.apiErrorCode() != 0) {
            return "refused (" + publish.apiErrorCode() + ")";
        }
        return publish.lateMayCome() ? "no PubAck within the publish timeout" : "no server answered";
    }

}
