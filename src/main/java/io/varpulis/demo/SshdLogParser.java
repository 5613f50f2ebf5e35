package io.varpulis.demo;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads sshd log lines into {@link SshdLogLine}s (SPEC section 7). Stateless and thread-safe.
 * <p>A line is {@code HEADER HOST TAG: MESSAGE} with either header:
 * <ul>
 *   <li>RFC 3164, {@code Mmm dd hh:mm:ss} ({@code /var/log/auth.log}; the day may be space-padded, {@code Jan  5}):
 *       no year and no zone, so both are given by the caller;</li>
 *   <li>RFC 3339, {@code YYYY-MM-DDThh:mm:ss[.fraction](Z|+hh:mm|-hh:mm)} (rsyslog's high-precision format,
 *       journald's short-iso; the {@code +hhmm} older journalctl prints is read too).</li>
 * </ul>
 * Failures are counted only under sshd's tags, {@code sshd}, {@code sshd-session} and {@code sshd-auth} (OpenSSH
 * 9.8 and later), each with an optional {@code [pid]}, and the legacy {@code sshd(pam_unix)}, so that another
 * program's wording cannot inflate a count:
 * <ul>
 *   <li>{@code Failed METHOD for [invalid user ]USER from SOURCE port P[ ssh2]}, any METHOD but {@code publickey}:
 *       one failure;</li>
 *   <li>{@code message repeated N times: [ <such a Failed line> ]} (syslog's duplicate suppression): N;</li>
 *   <li>under {@code sshd(pam_unix)} only, {@code authentication failure; ... rhost=SOURCE[ user=USER]}: one (an
 *       empty rhost names no source and is no failure). The modern {@code pam_unix(sshd:auth): authentication
 *       failure} is not counted: sshd logs the same attempt as a {@code Failed} line.</li>
 * </ul>
 * SOURCE is an IPv4 or IPv6 address or a host name, kept as logged.
 */
public final class SshdLogParser {

    private static final List<String> MONTHS =
            List.of("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec");

    /** RFC 3164: month, day (1 or 2 digits, padded with one space or not), time, then the rest of the line. */
    private static final Pattern RFC3164 =
            Pattern.compile("([A-Z][a-z]{2}) {1,2}(\\d{1,2}) (\\d{2}):(\\d{2}):(\\d{2}) (.*)");

    /**
     * RFC 3339: date, {@code T} (or {@code t}, section 5.6), time with up to nanoseconds, its offset ({@code Z},
     * {@code z} or hours and minutes), then the rest of the line.
     */
    private static final Pattern RFC3339 = Pattern.compile(
            "(\\d{4}-\\d{2}-\\d{2})[Tt](\\d{2}:\\d{2}):(\\d{2})(\\.\\d{1,9})?([Zz]|[+-]\\d{2}:?\\d{2}) (.*)");

    /** Host, one of sshd's tags with an optional pid, then the message. */
    private static final Pattern SSHD_MESSAGE =
            Pattern.compile("\\S+ (sshd(?:-session|-auth)?|sshd\\(pam_unix\\))(?:\\[\\d+])?: ?(.*)");

    private static final String LEGACY_PAM_TAG = "sshd(pam_unix)";

    /**
     * The user is matched greedily up to the last {@code from}, so a user name containing " from " (attackers try
     * odd names) cannot be mistaken for the source: sshd appends the real one last.
     */
    private static final Pattern FAILED =
            Pattern.compile("Failed (\\S+) for (invalid user )?(.*) from (\\S+) port \\d+(?: ssh2)?");

    /** What every message {@link #FAILED} matches starts with. */
    private static final String FAILED_PREFIX = "Failed ";

    /** What every message {@link #REPEATED} matches starts with. */
    private static final String REPEATED_PREFIX = "message repeated ";

    /** syslog's duplicate suppression; N is capped at nine digits so that it fits an int. */
    private static final Pattern REPEATED = Pattern.compile("message repeated ([1-9]\\d{0,8}) times: \\[ ?(.*?) ?]");

    /**
     * PAM before Linux-PAM 0.99.2 ({@code logname= uid= euid= tty= ruser= rhost= [user=]}). The rhost is the first
     * one that only a {@code user=} field can follow: the user name is the attacker's text and comes last, so a
     * name such as {@code x rhost=10.0.0.1} cannot frame that address.
     */
    private static final Pattern LEGACY_PAM =
            Pattern.compile("authentication failure;.*? rhost=(\\S*)(?:\\s+user=(.*?))?");

    private static final String OCTET = "(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)";

    private static final Pattern IPV4 = Pattern.compile("(?:" + OCTET + "\\.){3}" + OCTET);

    /**
     * IPv6 text (RFC 4291 section 2.2), including the IPv4-mapped form, with an optional zone ({@code fe80::1%eth0},
     * RFC 4007 section 11); checked loosely (sshd prints it canonical), but never three colons in a row.
     */
    private static final Pattern IPV6 = Pattern.compile("(?=[^%]*:)(?![^%]*:::)[0-9A-Fa-f:.]{2,45}(?:%[0-9A-Za-z_.-]{1,64})?");

    /** A host name label: letters, digits, '_' and inner '-', at most 63 characters. */
    private static final String LABEL = "[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?";

    /**
     * A host name (RFC 1123 labels, with the underscore real resolvers return). The last label must not be all
     * digits (RFC 3696 section 2), so that {@code 10.0.0.300} is refused rather than taken for a name.
     */
    private static final Pattern HOST_NAME =
            Pattern.compile("(?=.{1,253}$)(?:" + LABEL + "\\.)*(?![0-9]+$)" + LABEL);

    private SshdLogParser() {
    }

    /**
     * Parses one line whose RFC 3164 timestamp, if it has one, is UTC.
     *
     * @param line the raw line
     * @param year the year of an RFC 3164 timestamp
     * @return as {@link #parse(String, int, ZoneId)}
     */
    public static SshdLogLine parse(String line, int year) {
        return parse(line, year, ZoneOffset.UTC);
    }

    /**
     * Parses one line.
     *
     * @param line the raw line; a trailing {@code \r} or other trailing white space (CRLF files) is ignored
     * @param year the year of an RFC 3164 timestamp, which the line does not carry (RFC 3339 lines carry theirs)
     * @param zone the zone of an RFC 3164 timestamp; in a daylight-saving gap the time is moved forward by the
     *             gap's length, in an overlap the earlier offset is taken ({@link java.time.ZonedDateTime#of})
     * @return an {@link SshdLogLine.AuthFailure}, an {@link SshdLogLine.Other}, or an {@link SshdLogLine.Malformed}
     *         naming what is wrong; never {@code null}, never throws for any line content
     * @throws NullPointerException when {@code line} or {@code zone} is {@code null}
     */
    public static SshdLogLine parse(String line, int year, ZoneId zone) {
        String text = line.stripTrailing();
        Instant timestamp;
        String rest;
        // The first character tells the headers apart (a digit starts only RFC 3339, a letter only RFC 3164), so
        // each line is matched against one of them.
        boolean digit = !text.isEmpty() && text.charAt(0) >= '0' && text.charAt(0) <= '9';
        Matcher rfc3339 = RFC3339.matcher(text);
        Matcher rfc3164 = RFC3164.matcher(text);
        if (digit && rfc3339.matches()) {
            // A leap second (23:59:60, RFC 3339 section 5.7) is counted in the second before it: same window.
            String second = rfc3339.group(3).equals("60") ? "59" : rfc3339.group(3);
            String offset = rfc3339.group(5);
            try {
                timestamp = LocalDateTime.parse(rfc3339.group(1) + "T" + rfc3339.group(2) + ":" + second
                        + (rfc3339.group(4) == null ? "" : rfc3339.group(4)))
                        .toInstant(offset.equalsIgnoreCase("Z") ? ZoneOffset.UTC : ZoneOffset.of(offset));
            } catch (DateTimeException e) {
                return new SshdLogLine.Malformed("invalid RFC 3339 timestamp (" + e.getMessage() + "): " + text);
            }
            rest = rfc3339.group(6);
        } else if (!digit && rfc3164.matches()) {
            int month = MONTHS.indexOf(rfc3164.group(1)) + 1;
            if (month == 0) {
                return new SshdLogLine.Malformed("unknown month '" + rfc3164.group(1) + "' in: " + text);
            }
            try {
                timestamp = LocalDateTime.of(year, month, Integer.parseInt(rfc3164.group(2)),
                        Integer.parseInt(rfc3164.group(3)), Integer.parseInt(rfc3164.group(4)),
                        Integer.parseInt(rfc3164.group(5))).atZone(zone).toInstant();
            } catch (DateTimeException e) {
                return new SshdLogLine.Malformed("invalid syslog timestamp in year " + year + " (" + e.getMessage()
                        + "): " + text);
            }
            rest = rfc3164.group(6);
        } else {
            return new SshdLogLine.Malformed("no RFC 3164 (Mmm dd hh:mm:ss) or RFC 3339 (YYYY-MM-DDThh:mm:ss[.f]Z) "
                    + "timestamp at the start of: " + text);
        }
        Matcher sshd = SSHD_MESSAGE.matcher(rest);
        if (!sshd.matches()) {
            return new SshdLogLine.Other(timestamp, false);
        }
        return sshd.group(1).equals(LEGACY_PAM_TAG) ? legacyPam(timestamp, sshd.group(2), text)
                : failed(timestamp, sshd.group(2), text);
    }

    /**
     * @param source a failure's source as logged
     * @return whether it is an IPv4 or IPv6 address or a host name
     */
    static boolean isSource(String source) {
        return IPV4.matcher(source).matches() || IPV6.matcher(source).matches()
                || HOST_NAME.matcher(source).matches();
    }

    private static SshdLogLine failed(Instant timestamp, String message, String text) {
        // Both patterns are anchored at the message's start: most sshd lines are neither and skip them.
        if (!message.startsWith(FAILED_PREFIX) && !message.startsWith(REPEATED_PREFIX)) {
            return new SshdLogLine.Other(timestamp, true);
        }
        int failures = 1;
        SshdLogLine.Form form = SshdLogLine.Form.FAILED;
        Matcher repeated = REPEATED.matcher(message);
        if (repeated.matches()) {
            failures = Integer.parseInt(repeated.group(1));
            message = repeated.group(2);
            form = SshdLogLine.Form.MESSAGE_REPEATED;
        }
        Matcher failed = FAILED.matcher(message);
        if (!failed.matches() || failed.group(1).equals("publickey")) {
            return new SshdLogLine.Other(timestamp, true);
        }
        String source = failed.group(4);
        if (!isSource(source)) {
            return new SshdLogLine.Malformed("failed authentication from '" + source + "', which is neither an "
                    + "address nor a host name: " + text);
        }
        return new SshdLogLine.AuthFailure(timestamp, source, failed.group(3), failed.group(2) != null, failures,
                form);
    }

    private static SshdLogLine legacyPam(Instant timestamp, String message, String text) {
        Matcher pam = LEGACY_PAM.matcher(message);
        if (!pam.matches() || pam.group(1).isEmpty()) {
            return new SshdLogLine.Other(timestamp, true);
        }
        String source = pam.group(1);
        if (!isSource(source)) {
            return new SshdLogLine.Malformed("PAM authentication failure from rhost '" + source + "', which is "
                    + "neither an address nor a host name: " + text);
        }
        String user = pam.group(2) == null || pam.group(2).isEmpty() ? null : pam.group(2);
        return new SshdLogLine.AuthFailure(timestamp, source, user, false, 1, SshdLogLine.Form.LEGACY_PAM);
    }
}
