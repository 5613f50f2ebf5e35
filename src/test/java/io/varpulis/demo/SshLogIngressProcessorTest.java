package io.varpulis.demo;

import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.InMemoryKeyValueState;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SshLogIngressProcessorTest {

    private final SshLogIngressProcessor ingress = new SshLogIngressProcessor(2026);
    private final TestContext context = TestContext.first("line:30", new InMemoryKeyValueState());

    @Test
    void failureLineBecomesOneAuthFailureAtTheSyslogTime() {
        Event line = Event.of("SshLogLine", Map.of("line", "Dec 10 07:13:56 LabSZ sshd[24227]: message repeated 5 "
                + "times: [ Failed password for root from 5.36.59.76 port 42393 ssh2]\r", "line_number", 30));

        assertThat(ingress.process(line, context)).containsExactly(new Event("SshAuthFailure",
                Instant.parse("2026-12-10T07:13:56Z"), Map.of("src_ip", "5.36.59.76", "user", "root",
                "invalid_user", false, "failures", 5, "line_number", 30)));
    }

    @Test
    void otherLineGivesNothing() {
        Event line = Event.of("SshLogLine", Map.of("line", "Dec 10 07:13:56 LabSZ sshd[24227]: Connection closed by "
                + "5.36.59.76 [preauth]", "line_number", 31));

        assertThat(ingress.process(line, context)).isEmpty();
    }

    @Test
    void malformedLineIsRejectedSoThatItIsParkedNotDropped() {
        Event line = Event.of("SshLogLine", Map.of("line", "not syslog", "line_number", 7));

        assertThatThrownBy(() -> ingress.process(line, context)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("malformed sshd line 7").hasMessageContaining("no syslog timestamp");
    }

    @Test
    void otherTypeOrMissingLineIsRejected() {
        assertThatThrownBy(() -> ingress.process(Event.of("Heartbeat", Map.of("line", "x")), context))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expected a SshLogLine event");
        assertThatThrownBy(() -> ingress.process(Event.of("SshLogLine", Map.of("line_number", 3)), context))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'line'");
        assertThatThrownBy(() -> ingress.process(Event.of("SshLogLine", Map.of("line", 3)), context))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'line'");
    }
}
