package io.varpulis.bruteforce;

import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventBatch;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.pipeline.InMemoryKeyValueState;
import io.varpulis.pipeline.UnprocessableEventException;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SshLogIngressProcessorTest {

    private final SshLogIngressProcessor ingress = new SshLogIngressProcessor(2026);

    private final TestContext context = TestContext.first("line:30", new InMemoryKeyValueState());

    @Test
    void failureLineBecomesOneAuthFailureAtTheSyslogTime() {
        Event line = Event.of("SshLogLine",
                Map.of("line",
                        "Dec 10 07:13:56 LabSZ sshd[24227]: message repeated 5 "
                                + "times: [ Failed password for root from 5.36.59.76 port 42393 ssh2]\r",
                        "line_number", 30));

        assertThat(ingress.process(line, context))
            .containsExactly(new Event("SshAuthFailure", Instant.parse("2026-12-10T07:13:56Z"), Map.of("src_ip",
                    "5.36.59.76", "user", "root", "invalid_user", false, "failures", 5, "line_number", 30)));
    }

    @Test
    void otherLineGivesNothing() {
        Event line = Event.of("SshLogLine",
                Map.of("line", "Dec 10 07:13:56 LabSZ sshd[24227]: Connection closed by " + "5.36.59.76 [preauth]",
                        "line_number", 31));

        assertThat(ingress.process(line, context)).isEmpty();
    }

    @Test
    void malformedLineIsRejectedSoThatItIsParkedNotDropped() {
        Event line = Event.of("SshLogLine", Map.of("line", "not syslog", "line_number", 7));

        assertThatThrownBy(() -> ingress.process(line, context)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("malformed sshd line 7")
            .hasMessageContaining("no RFC 3164");
    }

    @Test
    void rfc3164LinesAreReadInTheConfiguredZoneAndRfc3339LinesInTheirOwn() {
        SshLogIngressProcessor paris = new SshLogIngressProcessor(2026, ZoneId.of("Europe/Paris"));
        Event syslog = Event.of("SshLogLine",
                Map.of("line", "Dec 10 07:13:56 h sshd[1]: Failed password for root " + "from 10.0.0.9 port 1 ssh2"));
        Event iso = Event.of("SshLogLine", Map.of("line",
                "2026-12-10T07:13:56.25-01:00 h sshd[1]: Failed password " + "for root from 10.0.0.9 port 1 ssh2"));

        assertThat(paris.process(syslog, context)).extracting(Event::timestamp)
            .containsExactly(Instant.parse("2026-12-10T06:13:56Z"));
        assertThat(paris.process(iso, context)).extracting(Event::timestamp)
            .containsExactly(Instant.parse("2026-12-10T08:13:56.250Z"));
    }

    @Test
    void legacyPamFailureFromAHostNameHasNoUserWhenTheLineNamesNone() {
        Event line = Event.of("SshLogLine", Map.of("line", "Jun 15 14:53:32 combo sshd(pam_unix)[23661]: "
                + "authentication failure; logname= uid=0 euid=0 tty=NODEVssh ruser= rhost=061092085098.ctinets.com ",
                "line_number", 44, "year", 2005));

        assertThat(ingress.process(line, context)).containsExactly(new Event("SshAuthFailure",
                Instant.parse("2005-06-15T14:53:32Z"),
                Map.of("src_ip", "061092085098.ctinets.com", "invalid_user", false, "failures", 1, "line_number", 44)));
    }

    @Test
    void aLineThatWasNotUtf8IsParkedEvenWhenItWouldParse() {
        Event line = Event.of("SshLogLine", Map.of("line",
                "Dec 10 07:13:56 h sshd[1]: Failed password for invalid " + "user \u00e9 from 10.0.0.9 port 1 ssh2",
                "line_number", 9, "charset", "ISO-8859-1"));

        assertThatThrownBy(() -> ingress.process(line, context)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("sshd line 9 is not valid UTF-8 (shown decoded as ISO-8859-1)");
    }

    @Test
    void otherTypeOrMissingLineIsRejected() {
        assertThatThrownBy(() -> ingress.process(Event.of("Heartbeat", Map.of("line", "x")), context))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("expected a SshLogLine event");
        assertThatThrownBy(() -> ingress.process(Event.of("SshLogLine", Map.of("line_number", 3)), context))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("'line'");
        assertThatThrownBy(() -> ingress.process(Event.of("SshLogLine", Map.of("line", 3)), context))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("'line'");
    }

    @Test
    void aBatchOfLinesGivesItsFailuresInOneBatch_inLineOrder_andParksEachBadLineAlone() throws Exception {
        EventCodec codec = new EventCodec();
        Event batch = EventBatch.of("SshLogLines", List.of(
                lineEvent("Dec 10 07:13:50 h sshd[1]: Failed password for root from 10.0.0.1 port 1 ssh2", 1),
                lineEvent("Dec 10 07:13:51 h sshd[1]: Connection closed by 10.0.0.1 [preauth]", 2),
                lineEvent("not syslog", 3),
                lineEvent("Dec 10 07:13:52 h sshd[1]: Failed none for invalid user x from 10.0.0.2 port 2", 4)));
        // As the route ingress hands it over: decoded from the wire, elements as JSON
        // objects.
        Event decoded = codec.decode(codec.encode(batch));
        TestContext batchContext = TestContext.first("lines:1-4", new InMemoryKeyValueState());

        List<Event> out = ingress.process(decoded, batchContext);

        assertThat(out).hasSize(1);
        assertThat(out.get(0).eventType()).isEqualTo("SshAuthFailures");
        List<Event> failures = EventBatch.elements(codec.decode(codec.encode(out.get(0))))
            .stream()
            .map(EventBatch.Element::event)
            .toList();
        assertThat(failures).extracting(e -> e.fields().get("line_number")).containsExactly(1, 4);
        assertThat(failures).extracting(e -> e.fields().get("src_ip")).containsExactly("10.0.0.1", "10.0.0.2");
        assertThat(failures.get(1).timestamp()).isEqualTo(Instant.parse("2026-12-10T07:13:52Z"));
        assertThat(batchContext.parked()).containsExactly(lineEvent("not syslog", 3));
    }

    @Test
    void aBatchElementThatIsNoEventIsParkedAsABatchOfItselfAlone() throws Exception {
        EventCodec codec = new EventCodec();
        Event decoded = codec.decode(("{\"event_type\":\"SshLogLines\",\"fields\":{\"events\":[\"just text\","
                + "{\"event_type\":\"HttpRequest\",\"fields\":{}}]}}")
            .getBytes(StandardCharsets.UTF_8));
        TestContext batchContext = TestContext.first("lines:x", new InMemoryKeyValueState());

        assertThat(ingress.process(decoded, batchContext)).isEmpty();

        assertThat(batchContext.parked()).containsExactly(
                Event.of("SshLogLines", Map.of("events", List.of("just text"))), Event.of("HttpRequest", Map.of()));
    }

    @Test
    void withEmitEventsABatchOfLinesGivesOneFailureEventEach() {
        SshLogIngressProcessor perEvent = new SshLogIngressProcessor(2026, ZoneOffset.UTC,
                SshLogIngressProcessor.Emit.EVENTS);
        Event batch = EventBatch.of("SshLogLines",
                List.of(lineEvent("Dec 10 07:13:50 h sshd[1]: Failed password for root from 10.0.0.1 port 1 ssh2", 1),
                        lineEvent("Dec 10 07:13:52 h sshd[1]: Failed password for root from 10.0.0.2 port 2 ssh2", 2)));

        assertThat(perEvent.process(batch, context)).extracting(Event::eventType)
            .containsExactly("SshAuthFailure", "SshAuthFailure");
    }

    @Test
    void aLogLinesEventWithoutAListIsRejectedWhole() {
        assertThatThrownBy(() -> ingress.process(Event.of("SshLogLines", Map.of("events", "nope")), context))
            .isInstanceOf(UnprocessableEventException.class)
            .hasMessageContaining("without a list field 'events'");
    }

    private static Event lineEvent(String line, int number) {
        return Event.of("SshLogLine", Map.of("line", line, "line_number", number));
    }

}
