package io.varpulis.demo;

import org.junit.jupiter.api.Test;

import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A log that crosses New Year keeps its windows: January lines after December ones belong
 * to the next year.
 */
class SyslogYearsTest {

    @Test
    void theYearMovesOnWhenTheMonthGoesBack() {
        List<String> lines = List.of("Dec 31 23:59:57 host sshd[1]: Failed password for root from 9.9.9.9 port 1 ssh2",
                "not a syslog line", "Jan  1 00:00:03 host sshd[1]: Failed password for root from 9.9.9.9 port 1 ssh2",
                "Feb  3 10:00:00 host sshd[1]: Accepted password for root");
        assertThat(SyslogYears.of(lines, 2024)).containsExactly(2024, 2024, 2025, 2025);
    }

    @Test
    void failuresAfterNewYearAreCountedInTheNewYearsWindow() throws Exception {
        List<String> lines = List.of("Dec 31 23:59:58 host sshd[1]: Failed password for root from 9.9.9.9 port 1 ssh2",
                "Jan  1 00:00:01 host sshd[1]: Failed password for root from 9.9.9.9 port 1 ssh2",
                "Jan  1 00:00:02 host sshd[1]: Failed password for root from 9.9.9.9 port 1 ssh2",
                "Jan  1 00:00:03 host sshd[1]: Failed password for root from 9.9.9.9 port 1 ssh2",
                "Jan  1 00:00:04 host sshd[1]: Failed password for root from 9.9.9.9 port 1 ssh2",
                "Jan  1 00:00:05 host sshd[1]: Failed password for root from 9.9.9.9 port 1 ssh2");
        ExpectedAlerts.Reference reference = ExpectedAlerts.of(
                lines.stream().map(l -> new LogInput.LogLine(l, true)).toList(), SyslogYears.of(lines, 2024),
                ZoneOffset.UTC);
        assertThat(reference.alerts()).containsExactly(Map.entry("9.9.9.9 2025-01-01T00:00:00Z", 5));
    }

}
