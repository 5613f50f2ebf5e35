package io.varpulis.demo;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads sshd syslog lines (RFC 3164 style, as in {@code /var/log/auth.log}) into {@link SshdLogLine}s.
 * <p>A line is {@code Mmm dd hh:mm:ss HOST PROGRAM[PID]: MESSAGE}; the day may be space-padded ({@code Jan  5}).
 * Failures are only counted in messages of {@code sshd} (or {@code sshd-session}, {@code sshd-auth}, which log
 * authentication since OpenSSH 9.8), so another daemon's wording cannot inflate a count. Stateless and thread-safe.
 */
public final class SshdLogParser {

    private static final List<String> MONTHS =
            List.of("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec");

    /** Month, day (1 or 2 digits, padded with one space or not), time, then the rest of the line. */
    private static final Pattern HEADER =
            Pattern.compile("([A-Z][a-z]{2}) {1,2}(\\d{1,2}) (\\d{2}):(\\d{2}):(\\d{2}) (.*)");

    /** Host, sshd program tag with optional pid, then the message. */
    private static final Pattern SSHD_MESSAGE = Pattern.compile("\\S+ sshd(?:-[a-z]+)?(?:\\[\\d+])?: (.*)");

    /**
     * The user is matched greedily up to the last {@code from}, so a user name containing " from " (attackers try
     * odd names) cannot be mistaken for the address.
     */
    private static final Pattern FAILED_PASSWORD =
            Pattern.compile("Failed password for (invalid user )?(.*) from (\\S+) port \\d+ ssh2");

    /** syslog's duplicate suppression; N is capped at nine digits so that it fits an int. */
    private static final Pattern REPEATED = Pattern.compile("message repeated ([1-9]\\d{0,8}) times: \\[ ?(.*?) ?]");

    private static final String OCTET = "(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)";

    private static final Pattern IPV4 = Pattern.compile("(?:" + OCTET + "\\.){3}" + OCTET);

    /** IPv6 text (RFC 4291 section 2.2), including the IPv4-mapped form; checked loosely, sshd prints it canonical. */
    private static final Pattern IPV6 = Pattern.compile("(?=.*:)[0-9A-Fa-f:.]{2,45}");

    private SshdLogParser() {
    }

    /**
     * Parses one line.
     *
     * @param line the raw line; a trailing {@code \r} or other trailing white space (CRLF files) is ignored
     * @param year the year of the syslog timestamp, which the line does not carry
     * @return an {@link SshdLogLine.AuthFailure}, an {@link SshdLogLine.Other}, or an {@link SshdLogLine.Malformed}
     *         naming what is wrong; never {@code null}, never throws for any line content
     * @throws NullPointerException when {@code line} is {@code null}
     */
    public static SshdLogLine parse(String line, int year) {
        String text = line.stripTrailing();
        Matcher header = HEADER.matcher(text);
        if (!header.matches()) {
            return new SshdLogLine.Malformed("no syslog timestamp (Mmm dd hh:mm:ss) at the start of: " + text);
        }
        int month = MONTHS.indexOf(header.group(1)) + 1;
        if (month == 0) {
            return new SshdLogLine.Malformed("unknown month '" + header.group(1) + "' in: " + text);
        }
        Instant timestamp;
        try {
            timestamp = LocalDateTime.of(year, month, Integer.parseInt(header.group(2)),
                    Integer.parseInt(header.group(3)), Integer.parseInt(header.group(4)),
                    Integer.parseInt(header.group(5))).toInstant(ZoneOffset.UTC);
        } catch (DateTimeException e) {
            return new SshdLogLine.Malformed("invalid syslog timestamp in year " + year + " (" + e.getMessage()
                    + "): " + text);
        }
        Matcher sshd = SSHD_MESSAGE.matcher(header.group(6));
        if (!sshd.matches()) {
            return new SshdLogLine.Other(timestamp);
        }
        String message = sshd.group(1);
        int failures = 1;
        Matcher repeated = REPEATED.matcher(message);
        if (repeated.matches()) {
            failures = Integer.parseInt(repeated.group(1));
            message = repeated.group(2);
        }
        Matcher failed = FAILED_PASSWORD.matcher(message);
        if (!failed.matches()) {
            return new SshdLogLine.Other(timestamp);
        }
        String srcIp = failed.group(3);
        if (!IPV4.matcher(srcIp).matches() && !IPV6.matcher(srcIp).matches()) {
            return new SshdLogLine.Malformed("failed password from '" + srcIp + "', which is not an IP address: "
                    + text);
        }
        return new SshdLogLine.AuthFailure(timestamp, srcIp, failed.group(2), failed.group(1) != null, failures);
    }
}
