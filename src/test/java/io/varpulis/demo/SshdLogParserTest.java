package io.varpulis.demo;

import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class SshdLogParserTest {

    @Test
    void failedPasswordIsOneFailure() {
        assertThat(SshdLogParser.parse(
                "Dec 10 07:13:43 LabSZ sshd[24227]: Failed password for root from 5.36.59.76 port 42393 ssh2", 2026))
                .isEqualTo(new SshdLogLine.AuthFailure(Instant.parse("2026-12-10T07:13:43Z"), "5.36.59.76", "root",
                        false, 1));
    }

    @Test
    void messageRepeatedIsNFailures() {
        assertThat(SshdLogParser.parse("Dec 10 07:13:56 LabSZ sshd[24227]: message repeated 5 times: "
                + "[ Failed password for root from 5.36.59.76 port 42393 ssh2]", 2026))
                .isEqualTo(new SshdLogLine.AuthFailure(Instant.parse("2026-12-10T07:13:56Z"), "5.36.59.76", "root",
                        false, 5));
    }

    @Test
    void invalidUserIsFlaggedAndKeepsTheNameAsPrinted() {
        assertThat(SshdLogParser.parse("Dec 10 06:55:48 LabSZ sshd[24200]: Failed password for invalid user "
                + "webmaster from 173.234.31.186 port 38926 ssh2", 2026))
                .isEqualTo(new SshdLogLine.AuthFailure(Instant.parse("2026-12-10T06:55:48Z"), "173.234.31.186",
                        "webmaster", true, 1));
        // Line 189 of the sample: the attacker tried a name starting with a space.
        assertThat(SshdLogParser.parse("Dec 10 08:24:35 LabSZ sshd[24361]: Failed password for invalid user  0101 "
                + "from 5.188.10.180 port 36279 ssh2", 2026))
                .isEqualTo(new SshdLogLine.AuthFailure(Instant.parse("2026-12-10T08:24:35Z"), "5.188.10.180",
                        " 0101", true, 1));
    }

    @Test
    void userNameContainingFromDoesNotHideTheAddress() {
        assertThat(SshdLogParser.parse("Dec 10 06:55:48 h sshd[1]: Failed password for invalid user a from b "
                + "from 10.0.0.9 port 22 ssh2", 2026))
                .isEqualTo(new SshdLogLine.AuthFailure(Instant.parse("2026-12-10T06:55:48Z"), "10.0.0.9",
                        "a from b", true, 1));
    }

    @Test
    void ipv6AndIpv4MappedSources() {
        assertThat(SshdLogParser.parse(
                "Dec 10 06:55:48 h sshd[7]: Failed password for root from 2001:db8::1f port 51000 ssh2", 2026))
                .isEqualTo(new SshdLogLine.AuthFailure(Instant.parse("2026-12-10T06:55:48Z"), "2001:db8::1f",
                        "root", false, 1));
        assertThat(SshdLogParser.parse("Dec 10 06:55:48 h sshd[7]: message repeated 3 times: [ Failed password "
                + "for invalid user pi from ::ffff:10.1.2.3 port 51000 ssh2]", 2026))
                .isEqualTo(new SshdLogLine.AuthFailure(Instant.parse("2026-12-10T06:55:48Z"), "::ffff:10.1.2.3",
                        "pi", true, 3));
    }

    @Test
    void sshdSessionOfOpenSsh98CountsToo() {
        assertThat(SshdLogParser.parse(
                "Dec 10 06:55:48 h sshd-session[7]: Failed password for root from 10.0.0.9 port 51000 ssh2", 2026))
                .isInstanceOf(SshdLogLine.AuthFailure.class);
    }

    @Test
    void otherLinesKeepTheirTimestampAndAreNoFailure() {
        Instant at = Instant.parse("2026-12-10T06:55:46Z");
        assertThat(SshdLogParser.parse("Dec 10 06:55:46 LabSZ sshd[24200]: Invalid user webmaster from "
                + "173.234.31.186", 2026)).isEqualTo(new SshdLogLine.Other(at));
        assertThat(SshdLogParser.parse("Dec 10 06:55:46 LabSZ sshd[24200]: pam_unix(sshd:auth): authentication "
                + "failure; logname= uid=0 euid=0 tty=ssh ruser= rhost=173.234.31.186 ", 2026))
                .isEqualTo(new SshdLogLine.Other(at));
        assertThat(SshdLogParser.parse("Dec 10 06:55:46 LabSZ sshd[24200]: Failed none for invalid user 0 from "
                + "5.188.10.180 port 59647 ssh2", 2026)).isEqualTo(new SshdLogLine.Other(at));
        assertThat(SshdLogParser.parse("Dec 10 06:55:46 LabSZ sshd[24200]: message repeated 2 times: [ Failed none "
                + "for invalid user 0 from 5.188.10.180 port 59647 ssh2]", 2026)).isEqualTo(new SshdLogLine.Other(at));
        // Another program's wording is not sshd's failure.
        assertThat(SshdLogParser.parse("Dec 10 06:55:46 LabSZ sudo: Failed password for root from 10.0.0.9 port 1 "
                + "ssh2", 2026)).isEqualTo(new SshdLogLine.Other(at));
    }

    @Test
    void singleDigitDayPaddedWithASpace() {
        assertThat(SshdLogParser.parse("Jan  5 00:00:07 LabSZ sshd[1]: Connection closed by 10.0.0.9 [preauth]",
                2027)).isEqualTo(new SshdLogLine.Other(Instant.parse("2027-01-05T00:00:07Z")));
    }

    @Test
    void crlfLineEndingIsIgnored() {
        assertThat(SshdLogParser.parse("Dec 10 07:13:43 LabSZ sshd[24227]: Failed password for root from "
                + "5.36.59.76 port 42393 ssh2\r", 2026)).isInstanceOf(SshdLogLine.AuthFailure.class);
    }

    @Test
    void lineWithoutAValidTimestampIsMalformedNotAnException() {
        assertThat(SshdLogParser.parse("garbage Failed password for root from 10.0.0.9 port 1 ssh2", 2026))
                .isInstanceOfSatisfying(SshdLogLine.Malformed.class,
                        m -> assertThat(m.reason()).contains("no syslog timestamp"));
        assertThat(SshdLogParser.parse("", 2026)).isInstanceOf(SshdLogLine.Malformed.class);
        assertThat(SshdLogParser.parse("Foo 10 07:13:43 LabSZ sshd[1]: x", 2026))
                .isInstanceOfSatisfying(SshdLogLine.Malformed.class,
                        m -> assertThat(m.reason()).contains("unknown month 'Foo'"));
        assertThat(SshdLogParser.parse("Feb 29 07:13:43 LabSZ sshd[1]: x", 2026))
                .isInstanceOfSatisfying(SshdLogLine.Malformed.class,
                        m -> assertThat(m.reason()).contains("invalid syslog timestamp in year 2026"));
        assertThat(SshdLogParser.parse("Feb 29 07:13:43 LabSZ sshd[1]: x", 2028)).isInstanceOf(SshdLogLine.Other.class);
        assertThat(SshdLogParser.parse("Dec 10 25:13:43 LabSZ sshd[1]: x", 2026))
                .isInstanceOf(SshdLogLine.Malformed.class);
    }

    @Test
    void failureFromSomethingThatIsNotAnIpIsMalformed() {
        assertThat(SshdLogParser.parse("Dec 10 07:13:43 LabSZ sshd[1]: Failed password for root from host.example "
                + "port 1 ssh2", 2026)).isInstanceOfSatisfying(SshdLogLine.Malformed.class,
                m -> assertThat(m.reason()).contains("'host.example', which is not an IP address"));
    }
}
