package io.varpulis.bruteforce;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads sshd log lines into {@link SshdLogLine}s (SPEC section 7). Stateless and
 * thread-safe.
 * <p>
 * A line is {@code HEADER HOST TAG: MESSAGE} with either header:
 * <ul>
 * <li>RFC 3164, {@code Mmm dd hh:mm:ss} ({@code /var/log/auth.log}; the day may be
 * space-padded, {@code Jan  5}): no year and no zone, so both are given by the
 * caller;</li>
 * <li>RFC 3339, {@code YYYY-MM-DDThh:mm:ss[.fraction](Z|+hh:mm|-hh:mm)} (rsyslog's
 * high-precision format, journald's short-iso; the {@code +hhmm} older journalctl prints
 * is read too).</li>
 * </ul>
 * Failures are counted only under sshd's tags, {@code sshd}, {@code sshd-session} and
 * {@code sshd-auth} (OpenSSH 9.8 and later), each with an optional {@code [pid]}, and the
 * legacy {@code sshd(pam_unix)}, so that another program's wording cannot inflate a
 * count:
 * <ul>
 * <li>{@code Failed METHOD for [invalid user ]USER from SOURCE port P[ ssh2]}, any METHOD
 * but {@code publickey}: one failure;</li>
 * <li>{@code message repeated N times: [ <such a Failed line> ]} (syslog's duplicate
 * suppression): N;</li>
 * <li>under {@code sshd(pam_unix)} only,
 * {@code authentication failure; ... rhost=SOURCE[ user=USER]}: one (an empty rhost names
 * no source and is no failure). The modern {@code pam_unix(sshd:auth): authentication
 *       failure} is not counted: sshd logs the same attempt as a {@code Failed}
 * line.</li>
 * </ul>
 * SOURCE is an IPv4 or IPv6 address or a host name, kept as logged.
 * <p>
 * Longer than most: the hand matching of the RFC 3164 header, the sshd tag and the
 * failure message is one parser read top to bottom, held to the old patterns by its
 * tests.
 */
public final class SshdLogParser {

    private static final List<String> MONTHS = List.of("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep",
            "Oct", "Nov", "Dec");

    /**
     * RFC 3164: month, day (1 or 2 digits, padded with one space or not), time, then the
     * rest of the line, as {@code ([A-Z][a-z]{2}) {1,2}(\d{1,2}) (\d{2}):(\d{2}):(\d{2})
     * (.*)} would match it, matched by hand ({@link #rfc3164Rest}).
     */

    /**
     * RFC 3339: date, {@code T} (or {@code t}, section 5.6), time with up to nanoseconds,
     * its offset ({@code Z}, {@code z} or hours and minutes), then the rest of the line.
     */
    private static final Pattern RFC3339 = Pattern
        .compile("(\\d{4}-\\d{2}-\\d{2})[Tt](\\d{2}:\\d{2}):(\\d{2})(\\.\\d{1,9})?([Zz]|[+-]\\d{2}:?\\d{2}) (.*)");

    private static final String LEGACY_PAM_TAG = "sshd(pam_unix)";

    /**
     * Host, one of sshd's tags with an optional pid, then the message, as
     * {@code \S+ (sshd(?:-session|-auth)?|sshd\(pam_unix\))(?:\[\d+])?: ?(.*)} would
     * match it, matched by hand ({@link #sshdTagAt}, {@link #sshdTag}): the tags in that
     * pattern's order.
     */
    private static final List<String> SSHD_TAGS = List.of("sshd-session", "sshd-auth", "sshd", LEGACY_PAM_TAG);

    /** No match at all. */
    private static final int NO_MATCH = -1;

    /**
     * The user is matched greedily up to the last {@code from}, so a user name containing
     * " from " (attackers try odd names) cannot be mistaken for the source: sshd appends
     * the real one last.
     */
    private static final String INVALID_USER = "invalid user ";

    /** What every message {@link #FAILED} matches starts with. */
    private static final String FAILED_PREFIX = "Failed ";

    /** What every message {@link #REPEATED} matches starts with. */
    private static final String REPEATED_PREFIX = "message repeated ";

    /**
     * syslog's duplicate suppression; N is capped at nine digits so that it fits an int.
     */
    private static final Pattern REPEATED = Pattern.compile("message repeated ([1-9]\\d{0,8}) times: \\[ ?(.*?) ?]");

    /**
     * PAM before Linux-PAM 0.99.2
     * ({@code logname= uid= euid= tty= ruser= rhost= [user=]}). The rhost is the first
     * one that only a {@code user=} field can follow: the user name is the attacker's
     * text and comes last, so a name such as {@code x rhost=10.0.0.1} cannot frame that
     * address.
     */
    private static final Pattern LEGACY_PAM = Pattern
        .compile("authentication failure;.*? rhost=(\\S*)(?:\\s+user=(.*?))?");

    private static final String OCTET = "(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)";

    private static final Pattern IPV4 = Pattern.compile("(?:" + OCTET + "\\.){3}" + OCTET);

    /**
     * IPv6 text (RFC 4291 section 2.2), including the IPv4-mapped form, with an optional
     * zone ({@code fe80::1%eth0}, RFC 4007 section 11); checked loosely (sshd prints it
     * canonical), but never three colons in a row.
     */
    private static final Pattern IPV6 = Pattern
        .compile("(?=[^%]*:)(?![^%]*:::)[0-9A-Fa-f:.]{2,45}(?:%[0-9A-Za-z_.-]{1,64})?");

    /** A host name label: letters, digits, '_' and inner '-', at most 63 characters. */
    private static final String LABEL = "[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?";

    /**
     * A host name (RFC 1123 labels, with the underscore real resolvers return). The last
     * label must not be all digits (RFC 3696 section 2), so that {@code 10.0.0.300} is
     * refused rather than taken for a name.
     */
    private static final Pattern HOST_NAME = Pattern.compile("(?=.{1,253}$)(?:" + LABEL + "\\.)*(?![0-9]+$)" + LABEL);

    private SshdLogParser() {
    }

    /**
     * Parses one line whose RFC 3164 timestamp, if it has one, is UTC.
     * @param line the raw line
     * @param year the year of an RFC 3164 timestamp
     * @return as {@link #parse(String, int, ZoneId)}
     */
    public static SshdLogLine parse(String line, int year) {
        return parse(line, year, ZoneOffset.UTC);
    }

    /**
     * Parses one line.
     * @param line the raw line; a trailing {@code \r} or other trailing white space (CRLF
     * files) is ignored
     * @param year the year of an RFC 3164 timestamp, which the line does not carry (RFC
     * 3339 lines carry theirs)
     * @param zone the zone of an RFC 3164 timestamp; in a daylight-saving gap the time is
     * moved forward by the gap's length, in an overlap the earlier offset is taken
     * ({@link java.time.ZonedDateTime#of})
     * @return an {@link SshdLogLine.AuthFailure}, an {@link SshdLogLine.Other}, or an
     * {@link SshdLogLine.Malformed} naming what is wrong; never {@code null}, never
     * throws for any line content
     * @throws NullPointerException when {@code line} or {@code zone} is {@code null}
     */
    public static SshdLogLine parse(String line, int year, ZoneId zone) {
        String text = line.stripTrailing();
        Instant timestamp;
        String rest;
        // The first character tells the headers apart (a digit starts only RFC 3339, a
        // letter only RFC 3164), so
        // each line is matched against one of them.
        boolean digit = !text.isEmpty() && text.charAt(0) >= '0' && text.charAt(0) <= '9';
        Matcher rfc3339 = digit ? RFC3339.matcher(text) : null;
        int restAt = digit ? NO_MATCH : rfc3164Rest(text);
        if (digit && rfc3339.matches()) {
            // A leap second (23:59:60, RFC 3339 section 5.7) is counted in the second
            // before it: same window.
            String second = rfc3339.group(3).equals("60") ? "59" : rfc3339.group(3);
            String offset = rfc3339.group(5);
            try {
                timestamp = LocalDateTime
                    .parse(rfc3339.group(1) + "T" + rfc3339.group(2) + ":" + second
                            + (rfc3339.group(4) == null ? "" : rfc3339.group(4)))
                    .toInstant(offset.equalsIgnoreCase("Z") ? ZoneOffset.UTC : ZoneOffset.of(offset));
            }
            catch (DateTimeException e) {
                return new SshdLogLine.Malformed("invalid RFC 3339 timestamp (" + e.getMessage() + "): " + text);
            }
            rest = rfc3339.group(6);
        }
        else if (restAt != NO_MATCH) {
            int month = MONTHS.indexOf(text.substring(0, 3)) + 1;
            if (month == 0) {
                return new SshdLogLine.Malformed("unknown month '" + text.substring(0, 3) + "' in: " + text);
            }
            // restAt - 9 is the time's first digit (hh:mm:ss and a space); the day's last
            // digit is two before it.
            int time = restAt - 9;
            int day = isDigit(text.charAt(time - 3)) ? digitAt(text, time - 3) * 10 + digitAt(text, time - 2)
                    : digitAt(text, time - 2);
            try {
                timestamp = LocalDateTime
                    .of(year, month, day, digitAt(text, time) * 10 + digitAt(text, time + 1),
                            digitAt(text, time + 3) * 10 + digitAt(text, time + 4),
                            digitAt(text, time + 6) * 10 + digitAt(text, time + 7))
                    .atZone(zone)
                    .toInstant();
            }
            catch (DateTimeException e) {
                return new SshdLogLine.Malformed(
                        "invalid syslog timestamp in year " + year + " (" + e.getMessage() + "): " + text);
            }
            rest = text.substring(restAt);
        }
        else {
            return new SshdLogLine.Malformed("no RFC 3164 (Mmm dd hh:mm:ss) or RFC 3339 (YYYY-MM-DDThh:mm:ss[.f]Z) "
                    + "timestamp at the start of: " + text);
        }
        int tagAt = sshdTagAt(rest);
        String tag = tagAt == NO_MATCH ? null : sshdTag(rest, tagAt);
        if (tag == null) {
            return new SshdLogLine.Other(timestamp, false);
        }
        String message = rest.substring(messageAt(rest, tagAt + tag.length()));
        return tag.equals(LEGACY_PAM_TAG) ? legacyPam(timestamp, message, text) : failed(timestamp, message, text);
    }

    /**
     * What {@code RFC3164.matcher(text).matches()} decides, by hand (issue 34: the two
     * patterns every line went through were a sixth of the ingress's time): {@code Mmm},
     * one or two spaces, a day of one or two digits, a space, {@code hh:mm:ss}, a space,
     * then the rest, which holds no line terminator ({@code .} does not match one).
     * @return where the rest starts, or {@link #NO_MATCH}
     */
    static int rfc3164Rest(String text) {
        int n = text.length();
        if (n < 3 + 1 + 1 + 1 + 8 + 1 || !isUpper(text.charAt(0)) || !isLower(text.charAt(1))
                || !isLower(text.charAt(2)) || text.charAt(3) != ' ') {
            return NO_MATCH;
        }
        int i = text.charAt(4) == ' ' ? 5 : 4;
        if (!isDigit(text.charAt(i))) {
            return NO_MATCH;
        }
        i = i + 1 < n && isDigit(text.charAt(i + 1)) ? i + 2 : i + 1;
        if (i + 10 > n || text.charAt(i) != ' ' || !isDigit(text.charAt(i + 1)) || !isDigit(text.charAt(i + 2))
                || text.charAt(i + 3) != ':' || !isDigit(text.charAt(i + 4)) || !isDigit(text.charAt(i + 5))
                || text.charAt(i + 6) != ':' || !isDigit(text.charAt(i + 7)) || !isDigit(text.charAt(i + 8))
                || text.charAt(i + 9) != ' ') {
            return NO_MATCH;
        }
        int rest = i + 10;
        // indexOf is vectorised; a Latin-1 line cannot hold U+2028 or U+2029, and answers
        // those at once.
        return text.indexOf('\n', rest) < 0 && text.indexOf('\r', rest) < 0 && text.indexOf('\u0085', rest) < 0
                && text.indexOf('\u2028', rest) < 0 && text.indexOf('\u2029', rest) < 0 ? rest : NO_MATCH;
    }

    /**
     * The start of {@code SSHD_MESSAGE}'s tag, {@code \S+ } by hand: the host runs to the
     * first white space ({@code \s}: space, tab, line feed, vertical tab, form feed,
     * carriage return), which must be a space.
     * @param rest what follows the header (no line terminator in it)
     * @return where the tag starts, or {@link #NO_MATCH}
     */
    static int sshdTagAt(String rest) {
        int n = rest.length();
        int i = 0;
        while (i < n && !isWhitespace(rest.charAt(i))) {
            i++;
        }
        return i == 0 || i == n || rest.charAt(i) != ' ' ? NO_MATCH : i + 1;
    }

    /**
     * The tag of {@code (sshd(?:-session|-auth)?|sshd\(pam_unix\))(?:\[\d+])?:}, tried in
     * the pattern's order, each one only if an optional {@code [pid]} and a colon follow
     * it.
     * @return the tag, or {@code null}
     */
    static String sshdTag(String rest, int at) {
        for (String tag : SSHD_TAGS) {
            if (rest.startsWith(tag, at) && colonAfterPid(rest, at + tag.length()) != NO_MATCH) {
                return tag;
            }
        }
        return null;
    }

    /**
     * @return where the message starts: after the optional {@code [pid]}, the colon and
     * one optional space
     */
    static int messageAt(String rest, int afterTag) {
        int colon = colonAfterPid(rest, afterTag);
        return colon + 1 < rest.length() && rest.charAt(colon + 1) == ' ' ? colon + 2 : colon + 1;
    }

    /**
     * @return where the colon after an optional {@code [digits]} is, or {@link #NO_MATCH}
     */
    private static int colonAfterPid(String rest, int i) {
        int n = rest.length();
        if (i < n && rest.charAt(i) == '[') {
            int j = i + 1;
            while (j < n && isDigit(rest.charAt(j))) {
                j++;
            }
            if (j > i + 1 && j + 1 < n && rest.charAt(j) == ']' && rest.charAt(j + 1) == ':') {
                return j + 1;
            }
        }
        return i < n && rest.charAt(i) == ':' ? i : NO_MATCH;
    }

    private static int digitAt(String text, int i) {
        return text.charAt(i) - '0';
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isUpper(char c) {
        return c >= 'A' && c <= 'Z';
    }

    private static boolean isLower(char c) {
        return c >= 'a' && c <= 'z';
    }

    /** {@code \s} of {@link Pattern} without {@code UNICODE_CHARACTER_CLASS}. */
    private static boolean isWhitespace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\u000B' || c == '\f' || c == '\r';
    }

    /**
     * @param source a failure's source as logged
     * @return whether it is an IPv4 or IPv6 address or a host name
     */
    static boolean isSource(String source) {
        return IPV4.matcher(source).matches() || IPV6.matcher(source).matches() || HOST_NAME.matcher(source).matches();
    }

    private static SshdLogLine failed(Instant timestamp, String message, String text) {
        // Both patterns are anchored at the message's start: most sshd lines are neither
        // and skip them.
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
        String[] failed = failedGroups(message);
        if (failed == null || failed[0].equals("publickey")) {
            return new SshdLogLine.Other(timestamp, true);
        }
        String source = failed[3];
        if (!isSource(source)) {
            return new SshdLogLine.Malformed("failed authentication from '" + source + "', which is neither an "
                    + "address nor a host name: " + text);
        }
        return new SshdLogLine.AuthFailure(timestamp, source, failed[2], failed[1] != null, failures, form);
    }

    /**
     * What {@code Failed (\S+) for (invalid user )?(.*) from (\S+) port \d+(?: ssh2)?}
     * matches on the whole message, by hand (issue 34: the pattern's backtracking was the
     * largest part of the parse of a failure line): the method runs to the first white
     * space, the user greedily up to the last {@code " from "} that the source, the port
     * and an optional {@code " ssh2"} end the message after, with {@code "invalid user "}
     * taken when a match remains with it (the pattern tries it first). The message holds
     * no line terminator.
     * @param message an sshd message
     * @return the four groups (the second {@code null} when absent), or {@code null} when
     * it does not match
     */
    static String[] failedGroups(String message) {
        if (!message.startsWith(FAILED_PREFIX)) {
            return null;
        }
        int methodEnd = FAILED_PREFIX.length();
        while (methodEnd < message.length() && !isWhitespace(message.charAt(methodEnd))) {
            methodEnd++;
        }
        if (methodEnd == FAILED_PREFIX.length() || !message.startsWith(" for ", methodEnd)) {
            return null;
        }
        int userAt = methodEnd + " for ".length();
        String method = message.substring(FAILED_PREFIX.length(), methodEnd);
        if (message.startsWith(INVALID_USER, userAt)) {
            int from = lastFrom(message, userAt + INVALID_USER.length());
            if (from != NO_MATCH) {
                return groups(message, method, INVALID_USER, userAt + INVALID_USER.length(), from);
            }
        }
        int from = lastFrom(message, userAt);
        return from == NO_MATCH ? null : groups(message, method, null, userAt, from);
    }

    private static String[] groups(String message, String method, String invalid, int userAt, int from) {
        int sourceAt = from + " from ".length();
        return new String[] { method, invalid, message.substring(userAt, from),
                message.substring(sourceAt, nextWhitespace(message, sourceAt)) };
    }

    /**
     * @return the last {@code " from "} at or after {@code userAt} that a valid tail
     * follows, or {@link #NO_MATCH}
     */
    private static int lastFrom(String message, int userAt) {
        for (int from = message.lastIndexOf(" from "); from >= userAt; from = message.lastIndexOf(" from ", from - 1)) {
            if (portTail(message, from + " from ".length())) {
                return from;
            }
        }
        return NO_MATCH;
    }

    /** Whether {@code (\S+) port \d+(?: ssh2)?} matches from {@code at} to the end. */
    private static boolean portTail(String message, int at) {
        int n = message.length();
        int end = nextWhitespace(message, at);
        if (end == at || !message.startsWith(" port ", end)) {
            return false;
        }
        int i = end + " port ".length();
        int digits = i;
        while (i < n && isDigit(message.charAt(i))) {
            i++;
        }
        return i > digits && (i == n || (i + " ssh2".length() == n && message.startsWith(" ssh2", i)));
    }

    private static int nextWhitespace(String text, int from) {
        int i = from;
        while (i < text.length() && !isWhitespace(text.charAt(i))) {
            i++;
        }
        return i;
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
