package io.varpulis.demo;

import java.time.Instant;

/**
 * What one sshd syslog line says, as far as brute-force detection cares (SPEC section 7); made by
 * {@link SshdLogParser#parse(String, int)}.
 */
public sealed interface SshdLogLine permits SshdLogLine.AuthFailure, SshdLogLine.Other, SshdLogLine.Malformed {

    /**
     * Failed password attempts: {@code Failed password for [invalid user ]USER from IP port P ssh2} (one), or that
     * message inside {@code message repeated N times: [ ... ]} (N).
     *
     * @param timestamp   the syslog timestamp, UTC
     * @param srcIp       the source address as sshd printed it, IPv4 or IPv6 text
     * @param user        the user name tried, as sshd printed it (may contain spaces)
     * @param invalidUser whether sshd said {@code invalid user} (no such account)
     * @param failures    the number of failed attempts the line stands for, at least 1
     */
    record AuthFailure(Instant timestamp, String srcIp, String user, boolean invalidUser, int failures)
            implements SshdLogLine {
    }

    /**
     * Any other line with a valid syslog timestamp: read and counted, no failure.
     *
     * @param timestamp the syslog timestamp, UTC
     */
    record Other(Instant timestamp) implements SshdLogLine {
    }

    /**
     * A line that cannot be read as sshd syslog: no valid timestamp, or a failure message whose source is not an IP
     * address. Kept apart from {@link Other} so that a caller can keep it for an operator instead of dropping it.
     *
     * @param reason what is wrong, for a log or a dead-letter envelope
     */
    record Malformed(String reason) implements SshdLogLine {
    }
}
