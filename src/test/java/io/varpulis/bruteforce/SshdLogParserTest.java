package io.varpulis.bruteforce;

import io.varpulis.bruteforce.SshdLogLine.AuthFailure;
import io.varpulis.bruteforce.SshdLogLine.Form;
import io.varpulis.bruteforce.SshdLogLine.Malformed;
import io.varpulis.bruteforce.SshdLogLine.Other;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SPEC section 7, form by form: lines written from the spec's wording, and real lines of
 * the loghub sample ({@code src/main/resources/sample/OpenSSH_2k.log}, quoted with their
 * line number).
 */
class SshdLogParserTest {

    private static final Instant AT = Instant.parse("2026-12-10T06:55:48Z");

    private static AuthFailure failure(Instant at, String source, String user, boolean invalid, int failures,
            Form form) {
        return new AuthFailure(at, source, user, invalid, failures, form);
    }

    // RFC 3164 headers

    @Test
    void sampleFailedPasswordIsOneFailure() {
        // Sample line 29.
        assertThat(SshdLogParser
            .parse("Dec 10 07:13:43 LabSZ sshd[24227]: Failed password for root from 5.36.59.76 port 42393 ssh2", 2026))
            .isEqualTo(failure(Instant.parse("2026-12-10T07:13:43Z"), "5.36.59.76", "root", false, 1, Form.FAILED));
    }

    @Test
    void sampleMessageRepeatedIsNFailures() {
        // Sample line 30.
        assertThat(SshdLogParser.parse("Dec 10 07:13:56 LabSZ sshd[24227]: message repeated 5 times: "
                + "[ Failed password for root from 5.36.59.76 port 42393 ssh2]", 2026))
            .isEqualTo(failure(Instant.parse("2026-12-10T07:13:56Z"), "5.36.59.76", "root", false, 5,
                    Form.MESSAGE_REPEATED));
    }

    @Test
    void sampleInvalidUserIsFlaggedAndKeepsTheNameAsPrinted() {
        // Sample line 6.
        assertThat(SshdLogParser.parse("Dec 10 06:55:48 LabSZ sshd[24200]: Failed password for invalid user "
                + "webmaster from 173.234.31.186 port 38926 ssh2", 2026))
            .isEqualTo(failure(AT, "173.234.31.186", "webmaster", true, 1, Form.FAILED));
        // Sample line 189: the attacker tried a name starting with a space.
        assertThat(SshdLogParser.parse("Dec 10 08:24:35 LabSZ sshd[24361]: Failed password for invalid user  0101 "
                + "from 5.188.10.180 port 36279 ssh2", 2026))
            .isEqualTo(failure(Instant.parse("2026-12-10T08:24:35Z"), "5.188.10.180", " 0101", true, 1, Form.FAILED));
    }

    @Test
    void sampleFailedNoneIsAFailureToo() {
        // Sample line 1171: METHOD "none", counted as fail2ban's sshd filter counts it.
        assertThat(SshdLogParser.parse("Dec 10 09:32:20 LabSZ sshd[24680]: Failed none for invalid user 0 from "
                + "5.188.10.180 port 49490 ssh2", 2026))
            .isEqualTo(failure(Instant.parse("2026-12-10T09:32:20Z"), "5.188.10.180", "0", true, 1, Form.FAILED));
    }

    @Test
    void sampleModernPamLineIsNotCounted() {
        // Sample line 5: sshd logs the same attempt as the Failed line that follows it.
        assertThat(SshdLogParser.parse("Dec 10 06:55:46 LabSZ sshd[24200]: pam_unix(sshd:auth): authentication "
                + "failure; logname= uid=0 euid=0 tty=ssh ruser= rhost=173.234.31.186 ", 2026))
            .isEqualTo(new Other(Instant.parse("2026-12-10T06:55:46Z"), true));
    }

    @Test
    void everyMethodButPublickey() {
        assertThat(SshdLogParser.parse("Dec 10 06:55:48 h sshd[7]: Failed keyboard-interactive/pam for root from "
                + "10.0.0.9 port 51000 ssh2", 2026))
            .isEqualTo(failure(AT, "10.0.0.9", "root", false, 1, Form.FAILED));
        assertThat(SshdLogParser
            .parse("Dec 10 06:55:48 h sshd[7]: Failed hostbased for root from 10.0.0.9 port " + "51000 ssh2", 2026))
            .isInstanceOf(AuthFailure.class);
        assertThat(SshdLogParser.parse("Dec 10 06:55:48 h sshd[7]: Failed publickey for root from 10.0.0.9 port "
                + "51000 ssh2: RSA SHA256:abc", 2026))
            .isEqualTo(new Other(AT, true));
        assertThat(SshdLogParser
            .parse("Dec 10 06:55:48 h sshd[7]: Failed publickey for root from 10.0.0.9 port " + "51000 ssh2", 2026))
            .isEqualTo(new Other(AT, true));
        assertThat(SshdLogParser.parse("Dec 10 06:55:48 h sshd[7]: message repeated 2 times: [ Failed publickey "
                + "for root from 10.0.0.9 port 51000 ssh2]", 2026))
            .isEqualTo(new Other(AT, true));
    }

    @Test
    void ssh2IsOptional() {
        assertThat(SshdLogParser
            .parse("Dec 10 06:55:48 h sshd[7]: Failed password for root from 10.0.0.9 port " + "51000", 2026))
            .isEqualTo(failure(AT, "10.0.0.9", "root", false, 1, Form.FAILED));
    }

    @Test
    void userNameContainingFromDoesNotHideTheSource() {
        assertThat(SshdLogParser.parse(
                "Dec 10 06:55:48 h sshd[1]: Failed password for invalid user a from b " + "from 10.0.0.9 port 22 ssh2",
                2026))
            .isEqualTo(failure(AT, "10.0.0.9", "a from b", true, 1, Form.FAILED));
    }

    @Test
    void ipv6AndIpv4MappedSources() {
        assertThat(SshdLogParser
            .parse("Dec 10 06:55:48 h sshd[7]: Failed password for root from 2001:db8::1f port 51000 ssh2", 2026))
            .isEqualTo(failure(AT, "2001:db8::1f", "root", false, 1, Form.FAILED));
        assertThat(SshdLogParser.parse("Dec 10 06:55:48 h sshd[7]: message repeated 3 times: [ Failed password "
                + "for invalid user pi from ::ffff:10.1.2.3 port 51000 ssh2]", 2026))
            .isEqualTo(failure(AT, "::ffff:10.1.2.3", "pi", true, 3, Form.MESSAGE_REPEATED));
    }

    @Test
    void hostNamesAreSources() {
        // sshd with UseDNS yes logs the name it resolved.
        assertThat(SshdLogParser.parse("Dec 10 06:55:48 h sshd[7]: Failed password for root from "
                + "ec2-52-80-34-196.cn-north-1.compute.amazonaws.com.cn port 51000 ssh2", 2026))
            .isEqualTo(
                    failure(AT, "ec2-52-80-34-196.cn-north-1.compute.amazonaws.com.cn", "root", false, 1, Form.FAILED));
        assertThat(SshdLogParser
            .parse("Dec 10 06:55:48 h sshd[7]: Failed password for root from localhost port " + "51000 ssh2", 2026))
            .isEqualTo(failure(AT, "localhost", "root", false, 1, Form.FAILED));
    }

    @ParameterizedTest
    @ValueSource(strings = { "10.0.0.300", "[10.0.0.1]", "10.0.0.1,", "a..b", "-" })
    void aSourceThatIsNeitherAnAddressNorAHostNameIsMalformed(String source) {
        assertThat(SshdLogParser
            .parse("Dec 10 07:13:43 LabSZ sshd[1]: Failed password for root from " + source + " port 1 ssh2", 2026))
            .isInstanceOfSatisfying(Malformed.class, m -> assertThat(m.reason())
                .contains("'" + source + "', which is neither an address nor a host " + "name"));
    }

    @Test
    void tagsOfOpenSsh98AndLaterCountAndEveryTagMayLackThePid() {
        for (String tag : new String[] { "sshd", "sshd-session", "sshd-auth", "sshd[1]", "sshd-session[7]",
                "sshd-auth[99]" }) {
            assertThat(SshdLogParser.parse(
                    "Dec 10 06:55:48 h " + tag + ": Failed password for root from 10.0.0.9 " + "port 51000 ssh2", 2026))
                .as(tag)
                .isEqualTo(failure(AT, "10.0.0.9", "root", false, 1, Form.FAILED));
        }
    }

    @Test
    void anotherProgramsWordingIsNoFailure() {
        for (String tag : new String[] { "sudo", "sshd-keygen[1]", "sshdx[1]", "pam_unix(sshd:auth)", "su[3]" }) {
            assertThat(SshdLogParser
                .parse("Dec 10 06:55:48 h " + tag + ": Failed password for root from 10.0.0.9 " + "port 1 ssh2", 2026))
                .as(tag)
                .isEqualTo(new Other(AT, false));
        }
        assertThat(SshdLogParser.parse(
                "Dec 10 06:55:48 h sshd(pam_unix)[1]: Failed password for root from " + "10.0.0.9 port 1 ssh2", 2026))
            .as("sshd's wording under PAM's tag")
            .isEqualTo(new Other(AT, true));
    }

    @Test
    void otherSshdLinesKeepTheirTimestampAndAreNoFailure() {
        Instant at = Instant.parse("2026-12-10T06:55:46Z");
        // Sample lines 2, 7 and 1.
        assertThat(SshdLogParser
            .parse("Dec 10 06:55:46 LabSZ sshd[24200]: Invalid user webmaster from " + "173.234.31.186", 2026))
            .isEqualTo(new Other(at, true));
        assertThat(SshdLogParser
            .parse("Dec 10 06:55:46 LabSZ sshd[24200]: Connection closed by 173.234.31.186 " + "[preauth]", 2026))
            .isEqualTo(new Other(at, true));
        assertThat(
                SshdLogParser.parse(
                        "Dec 10 06:55:46 LabSZ sshd[24200]: reverse mapping checking getaddrinfo "
                                + "for ns.marryaldkfaczcz.com [173.234.31.186] failed - POSSIBLE BREAK-IN ATTEMPT!",
                        2026))
            .isEqualTo(new Other(at, true));
    }

    @Test
    void singleDigitDayPaddedWithASpace() {
        assertThat(SshdLogParser.parse("Jan  5 00:00:07 LabSZ sshd[1]: Connection closed by 10.0.0.9 [preauth]", 2027))
            .isEqualTo(new Other(Instant.parse("2027-01-05T00:00:07Z"), true));
    }

    @Test
    void rfc3164TimestampsAreInTheGivenZone() {
        String line = "Dec 10 06:55:48 h sshd[7]: Failed password for root from 10.0.0.9 port 1 ssh2";
        assertThat(SshdLogParser.parse(line, 2026, ZoneOffset.ofHours(2)))
            .isEqualTo(failure(Instant.parse("2026-12-10T04:55:48Z"), "10.0.0.9", "root", false, 1, Form.FAILED));
        assertThat(SshdLogParser.parse(line.replace("Dec", "Jul"), 2026, ZoneId.of("Europe/Paris"))).as("summer time")
            .isEqualTo(failure(Instant.parse("2026-07-10T04:55:48Z"), "10.0.0.9", "root", false, 1, Form.FAILED));
        // 02:30 does not exist in Paris on 29 March 2026: moved forward by the gap, to
        // 03:30 CEST.
        assertThat(SshdLogParser.parse("Mar 29 02:30:00 h sshd[7]: x", 2026, ZoneId.of("Europe/Paris")))
            .isEqualTo(new Other(Instant.parse("2026-03-29T01:30:00Z"), true));
    }

    @Test
    void crlfLineEndingIsIgnored() {
        assertThat(SshdLogParser.parse(
                "Dec 10 07:13:43 LabSZ sshd[24227]: Failed password for root from " + "5.36.59.76 port 42393 ssh2\r",
                2026))
            .isInstanceOf(AuthFailure.class);
    }

    // RFC 3339 headers

    @Test
    void rfc3339WithFractionAndOffsetCarriesItsOwnYearAndZone() {
        assertThat(SshdLogParser.parse("2026-12-10T06:55:46.123456+02:00 host sshd[1]: Failed password for root "
                + "from 10.0.0.9 port 22 ssh2", 1999, ZoneId.of("Asia/Tokyo")))
            .isEqualTo(
                    failure(Instant.parse("2026-12-10T04:55:46.123456Z"), "10.0.0.9", "root", false, 1, Form.FAILED));
        assertThat(SshdLogParser.parse("2026-12-10T06:55:46-05:30 host sshd-session[2]: Failed password for "
                + "invalid user bob from 10.0.0.9 port 22 ssh2", 1999))
            .isEqualTo(failure(Instant.parse("2026-12-10T12:25:46Z"), "10.0.0.9", "bob", true, 1, Form.FAILED));
        assertThat(SshdLogParser.parse("2026-12-10T06:55:46Z host sshd-auth: message repeated 4 times: [ Failed "
                + "password for root from 2001:db8::7 port 22 ssh2]", 1999))
            .isEqualTo(failure(Instant.parse("2026-12-10T06:55:46Z"), "2001:db8::7", "root", false, 4,
                    Form.MESSAGE_REPEATED));
        assertThat(SshdLogParser.parse("2026-12-10T06:55:46.5Z host sshd[1]: Accepted password for root", 1999))
            .isEqualTo(new Other(Instant.parse("2026-12-10T06:55:46.500Z"), true));
        assertThat(SshdLogParser.parse("2026-12-10T06:55:46.123456789Z h sshd[1]: x", 1999))
            .isEqualTo(new Other(Instant.parse("2026-12-10T06:55:46.123456789Z"), true));
    }

    @Test
    void rfc3339OffsetWithoutColonAsOlderJournalctlPrintsIt() {
        assertThat(SshdLogParser.parse("2026-12-10T06:55:46+0200 host sshd[1]: x", 1999))
            .isEqualTo(new Other(Instant.parse("2026-12-10T04:55:46Z"), true));
    }

    @Test
    void rfc3339LowerCaseSeparatorsAndALeapSecond() {
        assertThat(SshdLogParser.parse("2026-12-10t06:55:46.5z host sshd[1]: x", 1999))
            .as("t and z: RFC 3339 section 5.6")
            .isEqualTo(new Other(Instant.parse("2026-12-10T06:55:46.500Z"), true));
        assertThat(SshdLogParser
            .parse("2016-12-31T23:59:60Z host sshd[1]: Failed password for root from 10.0.0.9 " + "port 22 ssh2", 1999))
            .as("a leap second counts in the second before it: the same window")
            .isEqualTo(failure(Instant.parse("2016-12-31T23:59:59Z"), "10.0.0.9", "root", false, 1, Form.FAILED));
        assertThat(SshdLogParser.parse("2016-12-31T23:59:61Z host sshd[1]: x", 1999)).isInstanceOf(Malformed.class);
    }

    @Test
    void aScopedIpv6SourceIsASource_threeColonsInARowAreNot() {
        assertThat(SshdLogParser
            .parse("Dec 10 06:55:46 host sshd[1]: Failed password for root from fe80::1%eth0 " + "port 22 ssh2", 2026))
            .isEqualTo(failure(Instant.parse("2026-12-10T06:55:46Z"), "fe80::1%eth0", "root", false, 1, Form.FAILED));
        assertThat(SshdLogParser.isSource("fe80::1%br-lan.100")).isTrue();
        assertThat(SshdLogParser.isSource(":::")).isFalse();
        assertThat(SshdLogParser.isSource("fe80:::1")).isFalse();
        assertThat(SshdLogParser.isSource("fe80::1%")).isFalse();
    }

    @Test
    void invalidRfc3339TimestampsAreMalformed() {
        assertThat(SshdLogParser.parse("2026-02-30T06:55:46Z host sshd[1]: x", 2026)).isInstanceOfSatisfying(
                Malformed.class, m -> assertThat(m.reason()).contains("invalid RFC 3339 timestamp"));
        assertThat(SshdLogParser.parse("2026-12-10T06:55:46+25:00 host sshd[1]: x", 2026))
            .isInstanceOf(Malformed.class);
        // No zone: neither form.
        assertThat(SshdLogParser.parse("2026-12-10T06:55:46 host sshd[1]: x", 2026)).isInstanceOf(Malformed.class);
        assertThat(SshdLogParser.parse("2026-12-10 06:55:46Z host sshd[1]: x", 2026)).isInstanceOf(Malformed.class);
        assertThat(SshdLogParser.parse("2026-12-10T06:55:46.1234567890Z host sshd[1]: x", 2026))
            .as("more than nanoseconds")
            .isInstanceOf(Malformed.class);
    }

    // The legacy PAM tag

    @Test
    void legacyPamAuthenticationFailureWithRhostIsOneFailure() {
        Instant at = Instant.parse("2005-06-14T15:16:01Z");
        // loghub Linux_2k.log (src/test/resources/logs/loghub), lines 1 and 4: real lines
        // of 2005.
        assertThat(SshdLogParser.parse("Jun 14 15:16:01 combo sshd(pam_unix)[19939]: authentication failure; "
                + "logname= uid=0 euid=0 tty=NODEVssh ruser= rhost=218.188.2.4 \r", 2005))
            .isEqualTo(failure(at, "218.188.2.4", null, false, 1, Form.LEGACY_PAM));
        assertThat(SshdLogParser.parse(
                "Jun 15 02:04:59 combo sshd(pam_unix)[20882]: authentication failure; "
                        + "logname= uid=0 euid=0 tty=NODEVssh ruser= rhost=220-135-151-1.hinet-ip.hinet.net  user=root",
                2005))
            .isEqualTo(failure(Instant.parse("2005-06-15T02:04:59Z"), "220-135-151-1.hinet-ip.hinet.net", "root", false,
                    1, Form.LEGACY_PAM));
        assertThat(SshdLogParser.parse("2005-06-14T15:16:01Z combo sshd(pam_unix): authentication failure; "
                + "logname= uid=0 euid=0 tty=NODEVssh ruser= rhost=2001:db8::2", 2026))
            .isEqualTo(failure(at, "2001:db8::2", null, false, 1, Form.LEGACY_PAM));
    }

    @Test
    void legacyPamWithAnEmptyRhostNamesNoSource() {
        assertThat(SshdLogParser.parse("Jun 14 15:16:01 combo sshd(pam_unix)[1]: authentication failure; logname= "
                + "uid=0 euid=0 tty=NODEVssh ruser= rhost=  user=root", 2026))
            .isEqualTo(new Other(Instant.parse("2026-06-14T15:16:01Z"), true));
        assertThat(SshdLogParser.parse("Jun 14 15:16:01 combo sshd(pam_unix)[1]: authentication failure; logname= "
                + "uid=0 euid=0 tty=NODEVssh ruser= rhost=", 2026))
            .isInstanceOf(Other.class);
    }

    @Test
    void legacyPamUserNameCannotFrameAnAddress() {
        // The user name is the attacker's text and comes last: the rhost before it is the
        // source.
        assertThat(SshdLogParser.parse("Jun 14 15:16:01 c sshd(pam_unix)[1]: authentication failure; logname= uid=0 "
                + "euid=0 tty=ssh ruser= rhost=192.0.2.2 user=test rhost=192.0.2.152", 2026))
            .isEqualTo(failure(Instant.parse("2026-06-14T15:16:01Z"), "192.0.2.2", "test rhost=192.0.2.152", false, 1,
                    Form.LEGACY_PAM));
        assertThat(SshdLogParser.parse("Jun 14 15:16:01 c sshd(pam_unix)[1]: authentication failure; logname= uid=0 "
                + "euid=0 tty=ssh ruser= rhost= user=x rhost=192.0.2.9", 2026))
            .as("an empty rhost stays empty")
            .isInstanceOf(Other.class);
    }

    @Test
    void legacyPamFormIsOnlyReadUnderItsTagAndOtherPamMessagesAreOther() {
        Instant at = Instant.parse("2026-06-14T15:16:01Z");
        assertThat(SshdLogParser.parse("Jun 14 15:16:01 combo sshd[1]: authentication failure; logname= uid=0 "
                + "euid=0 tty=NODEVssh ruser= rhost=218.188.2.4", 2026))
            .isEqualTo(new Other(at, true));
        assertThat(SshdLogParser.parse("Jun 14 15:16:01 combo ftpd(pam_unix)[1]: authentication failure; logname= "
                + "uid=0 euid=0 tty=NODEVssh ruser= rhost=218.188.2.4", 2026))
            .isEqualTo(new Other(at, false));
        assertThat(SshdLogParser
            .parse("Jun 14 15:16:01 combo sshd(pam_unix)[1]: session opened for user root by " + "(uid=0)", 2026))
            .isEqualTo(new Other(at, true));
        assertThat(SshdLogParser.parse("Jun 14 15:16:01 combo sshd(pam_unix)[1]: check pass; user unknown", 2026))
            .isEqualTo(new Other(at, true));
    }

    // What cannot be read

    @Test
    void lineWithoutAValidHeaderIsMalformedNotAnException() {
        assertThat(SshdLogParser.parse("garbage Failed password for root from 10.0.0.9 port 1 ssh2", 2026))
            .isInstanceOfSatisfying(Malformed.class,
                    m -> assertThat(m.reason()).contains("no RFC 3164 (Mmm dd hh:mm:ss) or RFC 3339"));
        assertThat(SshdLogParser.parse("", 2026)).isInstanceOf(Malformed.class);
        assertThat(SshdLogParser.parse("Foo 10 07:13:43 LabSZ sshd[1]: x", 2026))
            .isInstanceOfSatisfying(Malformed.class, m -> assertThat(m.reason()).contains("unknown month 'Foo'"));
        assertThat(SshdLogParser.parse("Feb 29 07:13:43 LabSZ sshd[1]: x", 2026)).isInstanceOfSatisfying(
                Malformed.class, m -> assertThat(m.reason()).contains("invalid syslog timestamp in year 2026"));
        assertThat(SshdLogParser.parse("Feb 29 07:13:43 LabSZ sshd[1]: x", 2028)).isInstanceOf(Other.class);
        assertThat(SshdLogParser.parse("Dec 10 25:13:43 LabSZ sshd[1]: x", 2026)).isInstanceOf(Malformed.class);
        assertThat(SshdLogParser.parse("<38>Dec 10 07:13:43 LabSZ sshd[1]: x", 2026))
            .as("a raw syslog packet with its priority")
            .isInstanceOf(Malformed.class);
    }

}
