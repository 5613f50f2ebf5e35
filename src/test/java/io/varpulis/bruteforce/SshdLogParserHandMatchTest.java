package io.varpulis.bruteforce;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The header and the sshd tag are matched by hand since issue 34 (they were a sixth of
 * the ingress's time): the hand-written matching must decide every line as the two
 * patterns it replaced did, and cut the same groups. Checked on every line of the bundled
 * sample and on 200 000 lines made of the pieces those patterns turn on (spaces and other
 * white space, digits, tags, pids, line terminators), with a fixed seed.
 */
class SshdLogParserHandMatchTest {

    /** The patterns before issue 34, verbatim. */
    private static final Pattern RFC3164 = Pattern
        .compile("([A-Z][a-z]{2}) {1,2}(\\d{1,2}) (\\d{2}):(\\d{2}):(\\d{2}) (.*)");

    private static final Pattern SSHD_MESSAGE = Pattern
        .compile("\\S+ (sshd(?:-session|-auth)?|sshd\\(pam_unix\\))(?:\\[\\d+])?: ?(.*)");

    private static final Pattern FAILED = Pattern
        .compile("Failed (\\S+) for (invalid user )?(.*) from (\\S+) port \\d+(?: ssh2)?");

    /**
     * What the failure pattern turns on: its literals, white space, digits, a user called
     * like its pieces.
     */
    private static final String[] FAILURE_PIECES = { "Failed ", "Failed", "password", "publickey", " for ", "for",
            "invalid user ", "invalid user", " from ", "from", " port ", "port", " ssh2", "ssh2", "22", "1.2.3.4",
            "::1", "host.example", " ", "  ", "\t", "\f", "x", "é", "\uD83D\uDE00", "7", ":" };

    private static final String[] PIECES = { "Dec", "Jan", "dec", "DEC", " ", " ", "  ", "\t", "1", "10", "5", "123",
            "07", ":", "07:13:43", "LabSZ", "host", "sshd", "sshd-session", "sshd-auth", "sshd(pam_unix)",
            "sshd-sessionx", "sshd(pam_unix", "[", "]", "[24227]", "[]", "[x]", ":", ": ", "::", "Failed password", "x",
            "\r", "\n", "\u0085", "\u2028", "\u2029", "\u000B", "\f", "é", "\uD83D\uDE00", "-" };

    @Test
    void everySampleLineIsCutAsThePatternsCutIt() throws IOException {
        try (InputStream in = SshdLogParserHandMatchTest.class.getResourceAsStream("/sample/OpenSSH_2k.log")) {
            String[] lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n");
            assertThat(lines).hasSizeGreaterThan(1000);
            for (String line : lines) {
                assertSameAsPatterns(line.stripTrailing());
            }
        }
    }

    @Test
    void madeUpLinesAreDecidedAsThePatternsDecideThem() {
        Random random = new Random(34);
        for (int i = 0; i < 200_000; i++) {
            assertSameAsPatterns(madeUp(random));
        }
    }

    @Test
    void madeUpFailureMessagesAreCutAsThePatternCutsThem() {
        Random random = new Random(34);
        for (int i = 0; i < 200_000; i++) {
            StringBuilder message = new StringBuilder(random.nextInt(4) == 0 ? ""
                    : "Failed password for " + (random.nextBoolean() ? "invalid user " : ""));
            for (int p = random.nextInt(10); p > 0; p--) {
                message.append(FAILURE_PIECES[random.nextInt(FAILURE_PIECES.length)]);
            }
            if (random.nextBoolean()) {
                message.append(" from 10.0.0.")
                    .append(random.nextInt(300))
                    .append(" port ")
                    .append(random.nextInt(70000))
                    .append(random.nextBoolean() ? " ssh2" : "");
            }
            assertFailureSameAsPattern(message.toString());
        }
    }

    @Test
    void sampleFailureMessagesAreCutAsThePatternCutsThem() throws IOException {
        try (InputStream in = SshdLogParserHandMatchTest.class.getResourceAsStream("/sample/OpenSSH_2k.log")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                int at = line.indexOf(": ");
                assertFailureSameAsPattern(at < 0 ? line : line.substring(at + 2).stripTrailing());
            }
        }
    }

    private static void assertFailureSameAsPattern(String message) {
        Matcher failed = FAILED.matcher(message);
        String[] groups = SshdLogParser.failedGroups(message);
        assertThat(groups != null).as("failure [%s]", message).isEqualTo(failed.matches());
        if (groups != null) {
            assertThat(groups).as("groups of [%s]", message)
                .containsExactly(failed.group(1), failed.group(2), failed.group(3), failed.group(4));
        }
    }

    private static String madeUp(Random random) {
        StringBuilder line = new StringBuilder();
        if (random.nextBoolean()) {
            // Mostly near-valid headers, so that the tag matching is reached often.
            line.append(random.nextBoolean() ? "Dec 10 07:13:43 " : "Jan  5 23:59:59 ");
        }
        int pieces = random.nextInt(8);
        for (int p = 0; p < pieces; p++) {
            line.append(PIECES[random.nextInt(PIECES.length)]);
        }
        return line.toString();
    }

    private static void assertSameAsPatterns(String text) {
        Matcher header = RFC3164.matcher(text);
        int restAt = SshdLogParser.rfc3164Rest(text);
        assertThat(restAt != -1).as("header of [%s]", text).isEqualTo(header.matches());
        List<String> rests = new ArrayList<>(List.of(text));
        if (restAt != -1) {
            assertThat(text.substring(restAt)).as("rest of [%s]", text).isEqualTo(header.group(6));
            rests.add(text.substring(restAt));
        }
        for (String rest : rests) {
            // Only a rest the header's (.*) took reaches the tag: one without a line
            // terminator.
            if (rest.chars()
                .noneMatch(c -> c == '\n' || c == '\r' || c == '\u0085' || c == '\u2028' || c == '\u2029')) {
                Matcher sshd = SSHD_MESSAGE.matcher(rest);
                int tagAt = SshdLogParser.sshdTagAt(rest);
                String tag = tagAt == -1 ? null : SshdLogParser.sshdTag(rest, tagAt);
                assertThat(tag != null).as("tag of [%s]", rest).isEqualTo(sshd.matches());
                if (tag != null) {
                    assertThat(tag).as("tag of [%s]", rest).isEqualTo(sshd.group(1));
                    assertThat(rest.substring(SshdLogParser.messageAt(rest, tagAt + tag.length())))
                        .as("message of [%s]", rest)
                        .isEqualTo(sshd.group(2));
                }
            }
        }
    }

}
