package io.varpulis.bruteforce;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventBatch;
import io.varpulis.pipeline.InMemoryKeyValueState;
import io.varpulis.pipeline.KeyValueState;
import io.varpulis.pipeline.StateTransaction;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BruteForceDetectorTest {

    private static final String IP = "5.36.59.76";

    /** 2026-12-10T07:10:00Z, a multiple of 300. */
    private static final long WINDOW = 1796886600L;

    private final InMemoryKeyValueState state = new InMemoryKeyValueState();

    private final BruteForceDetector detector = new BruteForceDetector();

    private static Event failure(String ip, String time, int failures) {
        return new Event("SshAuthFailure", Instant.parse(time),
                Map.of("src_ip", ip, "user", "root", "invalid_user", false, "failures", failures));
    }

    private static Event alert(String ip, String windowStart, int failures) {
        return new Event("BruteForceSuspected", Instant.parse(windowStart),
                Map.of("src_ip", ip, "window_start", windowStart, "failures", failures));
    }

    private List<Event> apply(String messageId, Event event) {
        return detector.process(event, TestContext.first(messageId, state));
    }

    @Test
    void fifthFailureInAWindowRaisesOneAlertAtTheWindowStart() {
        for (int i = 1; i <= 4; i++) {
            assertThat(apply("m" + i, failure(IP, "2026-12-10T07:1" + i + ":00Z", 1))).isEmpty();
        }

        List<Event> out = apply("m5", failure(IP, "2026-12-10T07:14:59Z", 1));

        assertThat(out).containsExactly(alert(IP, "2026-12-10T07:10:00Z", 5));
        assertThat(out.get(0).timestamp()).isEqualTo(Instant.ofEpochSecond(WINDOW));
    }

    @Test
    void neverTwoAlertsForOneSourceAndWindow() {
        List<Event> alerts = new ArrayList<>();
        for (int i = 1; i <= 20; i++) {
            alerts.addAll(apply("m" + i, failure(IP, "2026-12-10T07:12:00Z", 1)));
        }

        assertThat(alerts).containsExactly(alert(IP, "2026-12-10T07:10:00Z", 5));
    }

    @Test
    void messageRepeatedCrossesByMoreThanOneAndReportsTheCountAtTheCrossing() {
        assertThat(apply("m1", failure(IP, "2026-12-10T07:13:43Z", 1))).isEmpty();
        assertThat(apply("m2", failure(IP, "2026-12-10T07:13:50Z", 2))).isEmpty();

        assertThat(apply("m3", failure(IP, "2026-12-10T07:13:56Z", 5)))
            .containsExactly(alert(IP, "2026-12-10T07:10:00Z", 8));
        assertThat(apply("m4", failure(IP, "2026-12-10T07:13:57Z", 5))).isEmpty();
    }

    @Test
    void windowsAreAlignedToTheEpoch() {
        assertThat(apply("m1", failure(IP, "2026-12-10T07:09:59Z", 4))).isEmpty();
        assertThat(apply("m2", failure(IP, "2026-12-10T07:10:00Z", 1))).isEmpty();
        assertThat(apply("m3", failure(IP, "2026-12-10T07:05:00Z", 1)))
            .containsExactly(alert(IP, "2026-12-10T07:05:00Z", 5));
        assertThat(apply("m4", failure(IP, "2026-12-10T07:14:59Z", 4)))
            .containsExactly(alert(IP, "2026-12-10T07:10:00Z", 5));
    }

    @Test
    void sourcesAreCountedApart() {
        assertThat(apply("m1", failure(IP, "2026-12-10T07:10:00Z", 4))).isEmpty();
        assertThat(apply("m2", failure("5.36.59.77", "2026-12-10T07:10:00Z", 4))).isEmpty();
        assertThat(apply("m3", failure("2001:db8::1", "2026-12-10T07:10:00Z", 4))).isEmpty();

        assertThat(apply("m4", failure("2001:db8::1", "2026-12-10T07:11:00Z", 1)))
            .containsExactly(alert("2001:db8::1", "2026-12-10T07:10:00Z", 5));
    }

    @Test
    void hostNamesAreSourcesWithKeysOfTheirOwn() {
        for (int i = 1; i <= 5; i++) {
            apply("h" + i, failure("cafe_be", "2026-12-10T07:12:00Z", 1));
        }
        List<Event> alerts = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            alerts.addAll(apply("i" + i, failure("cafe.be", "2026-12-10T07:12:00Z", 1)));
        }

        assertThat(alerts).as("cafe.be is IP text, cafe_be a host name: two sources")
            .containsExactly(alert("cafe.be", "2026-12-10T07:10:00Z", 5));
        assertThat(state.get("bf." + WINDOW + ".h=cafe_be")).isPresent();
        assertThat(state.get("bf." + WINDOW + ".cafe_be")).isPresent();
        assertThat(BruteForceDetector.stateKey("ec2-1-2-3-4.compute.example.com", WINDOW))
            .isEqualTo("bf." + WINDOW + ".h=ec2-1-2-3-4.compute.example.com");
    }

    @Test
    void scopedIpv6SourcesAreCountedApartByZone() {
        List<Event> alerts = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            alerts.addAll(apply("z" + i, failure("fe80::1%eth0", "2026-12-10T07:12:00Z", 1)));
            alerts.addAll(apply("y" + i, failure("fe80::1%eth1", "2026-12-10T07:12:00Z", 1)));
        }
        assertThat(alerts).as("4 failures on each interface: two sources, no alert").isEmpty();
        assertThat(apply("z5", failure("fe80::1%eth0", "2026-12-10T07:12:00Z", 1)))
            .containsExactly(alert("fe80::1%eth0", "2026-12-10T07:10:00Z", 5));
        assertThat(BruteForceDetector.stateKey("fe80::1%eth0", WINDOW)).isEqualTo("bf." + WINDOW + ".fe80--1=eth0");
        assertThat(BruteForceDetector.stateKey("fe80::1%a.b", WINDOW))
            .isNotEqualTo(BruteForceDetector.stateKey("fe80::1%a_b", WINDOW))
            .isEqualTo("bf." + WINDOW + ".fe80--1=a_2eb");
    }

    @Test
    void aRedeliveredMessageIsNotCountedTwice() {
        for (int i = 0; i < 5; i++) {
            assertThat(apply("m1", failure(IP, "2026-12-10T07:12:00Z", 1))).isEmpty();
        }
        assertThat(apply("m2", failure(IP, "2026-12-10T07:12:00Z", 3))).isEmpty();

        assertThat(apply("m3", failure(IP, "2026-12-10T07:12:00Z", 1)))
            .containsExactly(alert(IP, "2026-12-10T07:10:00Z", 5));
    }

    @Test
    void redeliveryOfTheCrossingMessageAfterACrashReEmitsTheSameAlert() {
        // The worker wrote the state for m5 and died before the alert's PubAck and m5's
        // ack: m5 comes back.
        for (int i = 1; i <= 4; i++) {
            apply("m" + i, failure(IP, "2026-12-10T07:12:00Z", 1));
        }
        List<Event> first = apply("m5", failure(IP, "2026-12-10T07:12:00Z", 1));

        BruteForceDetector restarted = new BruteForceDetector();
        List<Event> again = restarted.process(failure(IP, "2026-12-10T07:12:00Z", 1), new TestContext("m5", 2, state));

        assertThat(again).isEqualTo(first).containsExactly(alert(IP, "2026-12-10T07:10:00Z", 5));
        assertThat(BruteForceDetector.alertId(again.get(0))).isEqualTo(BruteForceDetector.alertId(first.get(0)))
            .isEqualTo("alert:" + IP + ":" + WINDOW);
        // Inputs that did not cross the threshold emit nothing, redelivered or new.
        assertThat(restarted.process(failure(IP, "2026-12-10T07:12:00Z", 1), new TestContext("m3", 2, state)))
            .isEmpty();
        assertThat(restarted.process(failure(IP, "2026-12-10T07:12:00Z", 1), TestContext.first("m6", state))).isEmpty();
    }

    @Test
    void stateSurvivesInTheStoreNotInTheInstance() {
        for (int i = 1; i <= 4; i++) {
            assertThat(new BruteForceDetector().process(failure(IP, "2026-12-10T07:12:00Z", 1),
                    TestContext.first("m" + i, state)))
                .isEmpty();
        }

        assertThat(new BruteForceDetector().process(failure(IP, "2026-12-10T07:13:00Z", 1),
                TestContext.first("m5", state)))
            .containsExactly(alert(IP, "2026-12-10T07:10:00Z", 5));
    }

    @Test
    void stateIsOneJsonValuePerWindowAndSourceAndForgetsSeenIdsOnceAlerted() throws Exception {
        ObjectMapper json = new ObjectMapper();
        apply("m1", failure("2001:db8::1", "2026-12-10T07:12:00Z", 1));
        apply("m2", failure("2001:db8::1", "2026-12-10T07:12:00Z", 2));

        assertThat(json.readTree(value(state, "bf." + WINDOW + ".2001-db8--1")))
            .isEqualTo(json.readTree("{\"failures\":3,\"seen\":[\"m1\",\"m2\"],\"alerted\":false}"));

        apply("m3", failure("2001:db8::1", "2026-12-10T07:12:00Z", 2));

        assertThat(json.readTree(value(state, "bf." + WINDOW + ".2001-db8--1")))
            .isEqualTo(json.readTree("{\"failures\":5,\"alerted\":true,\"alerted_by\":\"m3\"}"));
        assertThat(state.get("bf." + WINDOW + ".5_36_59_76")).isEmpty();
    }

    @Test
    void thresholdAndWindowAreSettings() {
        BruteForceDetector strict = new BruteForceDetector(2, Duration.ofMinutes(1));

        assertThat(strict.process(failure(IP, "2026-12-10T07:12:59Z", 1), TestContext.first("m1", state))).isEmpty();
        assertThat(strict.process(failure(IP, "2026-12-10T07:13:00Z", 1), TestContext.first("m2", state))).isEmpty();
        assertThat(strict.process(failure(IP, "2026-12-10T07:13:30Z", 1), TestContext.first("m3", state)))
            .containsExactly(alert(IP, "2026-12-10T07:13:00Z", 2));
        assertThatThrownBy(() -> new BruteForceDetector(0, Duration.ofMinutes(5)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("threshold");
        assertThatThrownBy(() -> new BruteForceDetector(5, Duration.ofMillis(1500)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("window");
    }

    @Test
    void failuresDefaultsToOneAsInTheSpecExampleEvent() {
        Event specExample = new Event("SshAuthFailure", Instant.parse("2026-11-30T12:00:00Z"),
                Map.of("src_ip", "10.0.0.9", "user", "root"));
        BruteForceDetector single = new BruteForceDetector(1, Duration.ofMinutes(5));

        assertThat(single.process(specExample, TestContext.first("m1", state)))
            .containsExactly(alert("10.0.0.9", "2026-11-30T12:00:00Z", 1));
    }

    @Test
    void eventsWithoutSourceOrTimeAreRejected() {
        assertThatThrownBy(() -> apply("m1", Event.of("SshAuthFailure", Map.of("src_ip", IP, "failures", 1))))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("without a timestamp");
        assertThatThrownBy(() -> apply("m1", new Event("SshAuthFailure", Instant.EPOCH, Map.of("failures", 1))))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("'src_ip'");
        for (String bad : List.of("host..example", "[::1]", "10.0.0.1 port", ".z", "z:b")) {
            assertThatThrownBy(
                    () -> apply("m1", new Event("SshAuthFailure", Instant.EPOCH, Map.of("src_ip", bad, "failures", 1))))
                .as(bad)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("neither an IPv4 or IPv6 address nor a host name");
        }
        assertThatThrownBy(
                () -> apply("m1", new Event("SshAuthFailure", Instant.EPOCH, Map.of("src_ip", IP, "failures", 0))))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("positive whole number");
        assertThatThrownBy(() -> apply("m1", new Event("SshLogLine", Instant.EPOCH, Map.of("src_ip", IP))))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("expected a SshAuthFailure");
    }

    private static byte[] value(KeyValueState state, String key) {
        return state.get(key).orElseThrow(() -> new AssertionError("no state key " + key));
    }

    @Test
    void aBatchCountsLikeItsEventsOneByOne_eachElementOnce_andWritesEachWindowOnce() {
        List<Event> failures = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            failures.add(failure(i % 2 == 0 ? IP : "10.0.0.9", "2026-12-10T07:1" + (i % 5) + ":00Z", 1));
        }
        InMemoryKeyValueState oneByOne = new InMemoryKeyValueState();
        List<Event> singles = new ArrayList<>();
        for (int i = 0; i < failures.size(); i++) {
            singles.addAll(detector.process(failures.get(i), TestContext.first("b#" + i, oneByOne)));
        }
        CountingState batched = new CountingState();
        StateTransaction transaction = new StateTransaction(batched);
        Event batch = EventBatch.of("SshAuthFailures", failures);

        List<Event> alerts = detector.process(batch, TestContext.first("b", transaction));
        transaction.commit();

        assertThat(alerts).containsExactlyElementsOf(singles)
            .containsExactly(alert(IP, "2026-12-10T07:10:00Z", 5), alert("10.0.0.9", "2026-12-10T07:10:00Z", 5));
        assertThat(batched.puts).as("one write per window for the whole batch").isEqualTo(2);
        for (String key : List.of(BruteForceDetector.stateKey(IP, WINDOW),
                BruteForceDetector.stateKey("10.0.0.9", WINDOW))) {
            assertThat(batched.get(key)).map(String::new).isEqualTo(oneByOne.get(key).map(String::new));
        }
        // Redelivered, the batch counts nothing twice and re-emits the alerts its
        // elements raised.
        assertThat(detector.process(batch, TestContext.first("b", batched))).containsExactlyElementsOf(alerts);
    }

    @Test
    void aBatchElementThatCannotBeCountedIsParkedAlone_theOthersCounted() {
        Event bad = failure("not an address!", "2026-12-10T07:12:00Z", 1);
        List<Event> failures = new ArrayList<>(List.of(bad));
        for (int i = 0; i < 5; i++) {
            failures.add(failure(IP, "2026-12-10T07:12:00Z", 1));
        }
        TestContext context = TestContext.first("b", state);

        assertThat(detector.process(EventBatch.of("SshAuthFailures", failures), context))
            .containsExactly(alert(IP, "2026-12-10T07:10:00Z", 5));
        assertThat(context.parked()).containsExactly(bad);
    }

    /** A state in memory that counts its writes. */
    private static final class CountingState implements KeyValueState {

        private final InMemoryKeyValueState values = new InMemoryKeyValueState();

        private int puts;

        @Override
        public java.util.Optional<byte[]> get(String key) {
            return values.get(key);
        }

        @Override
        public void put(String key, byte[] value) {
            puts++;
            values.put(key, value);
        }

        @Override
        public void delete(String key) {
            values.delete(key);
        }

    }

}
