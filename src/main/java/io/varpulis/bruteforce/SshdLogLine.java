package io.varpulis.bruteforce;

import java.time.Instant;

/**
 * What one sshd log line says, as far as brute-force detection cares (SPEC section 7);
 * made by {@link SshdLogParser#parse(String, int, java.time.ZoneId)}.
 */
public sealed interface SshdLogLine permits SshdLogLine.AuthFailure, SshdLogLine.Other, SshdLogLine.Malformed {

    /**
     * Failed authentication attempts from one source.
     *
     * @param timestamp the line's timestamp
     * @param srcIp the source as logged: IPv4 or IPv6 text, or a host name (sshd with
     * UseDNS, PAM's rhost)
     * @param user the user name tried, as logged (may contain spaces), or {@code null}
     * when the line names none (a legacy PAM line without {@code user=})
     * @param invalidUser whether sshd said {@code invalid user} (no such account)
     * @param failures the number of failed attempts the line stands for, at least 1
     * @param form which of the SPEC's forms the line has
     */
    record AuthFailure(Instant timestamp, String srcIp, String user, boolean invalidUser, int failures,
            Form form) implements SshdLogLine {
    }

    /**
     * Any other line with a valid header: read and counted, no failure.
     *
     * @param timestamp the line's timestamp
     * @param sshd whether its tag is one of sshd's ({@code sshd}, {@code sshd-session},
     * {@code sshd-auth}, {@code sshd(pam_unix)}); another program's lines are never
     * failures
     */
    record Other(Instant timestamp, boolean sshd) implements SshdLogLine {
    }

    /**
     * A line that cannot be read: no valid RFC 3164 or RFC 3339 header, or a failure
     * whose source is neither an address nor a host name. Kept apart from {@link Other}
     * so that a caller parks it for an operator instead of dropping it.
     *
     * @param reason what is wrong, for a log or a dead-letter envelope
     */
    record Malformed(String reason) implements SshdLogLine {
    }

    /** The forms of a failure line (SPEC section 7). */
    enum Form {

        /**
         * {@code Failed METHOD for [invalid user ]USER from SOURCE port P[ ssh2]}, METHOD
         * not publickey: 1.
         */
        FAILED,
        /** {@code message repeated N times: [ <a FAILED line> ]}: N. */
        MESSAGE_REPEATED,
        /**
         * {@code sshd(pam_unix)[pid]: authentication failure; ... rhost=SOURCE[ user=USER]}:
         * 1.
         */
        LEGACY_PAM

    }

}
