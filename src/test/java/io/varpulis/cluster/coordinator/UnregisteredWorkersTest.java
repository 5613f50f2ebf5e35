package io.varpulis.cluster.coordinator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.pipeline.EventCodec;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 26, item 1, without a broker: which worker heartbeating unregistered a
 * coordinator admits (a Rust Varpulis 0.11 worker registers only when it starts).
 */
class UnregisteredWorkersTest {

    /** The nodes' own mapper (trailing tokens refused, as in the application). */
    private final ObjectMapper json = new EventCodec().mapper();

    @Test
    void onlyAWorkerThatDoesNotKnowRegisterIsAdmittedFromItsHeartbeatsAndOnlyWithoutAnApiKey() throws Exception {
        JsonNode unknown = json.readTree("{\"error\":\"unknown command: register\"}");
        JsonNode ours = json.readTree("{\"status\":\"registering\"}");
        MutableClock clock = new MutableClock();
        UnregisteredWorkers open = new UnregisteredWorkers(clock, Duration.ofSeconds(15), false);
        UnregisteredWorkers keyed = new UnregisteredWorkers(clock, Duration.ofSeconds(15), true);
        keyed.heartbeat("rw1");

        assertThat(open.answered("rw1", unknown, null)).isTrue();
        assertThat(open.answered("jw1", ours, null)).as("ours registers by itself").isFalse();
        assertThat(open.answered("jw2", null, new IllegalStateException("timeout"))).isFalse();
        assertThat(keyed.answered("rw1", unknown, null)).isFalse();
        assertThat(keyed.list()).singleElement()
            .extracting(UnregisteredWorkers.Entry::reason)
            .asString()
            .contains("api-key", "restart it");
    }

}
