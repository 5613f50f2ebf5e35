package io.varpulis.cluster.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.pipeline.PipelineGroupSpec;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 26, items 1 and 4, without a broker: the registration and command shapes a Rust
 * Varpulis 0.11 node reads.
 */
class MixedFleetShapesTest {

    /** The nodes' own mapper (trailing tokens refused, as in the application). */
    private final ObjectMapper json = new EventCodec().mapper();

    /**
     * The Rust worker reads the reply as {@code {worker_id: String, status: String,
     * heartbeat_interval_secs: Option<u64>}} and takes any reply that fits for an
     * acceptance: a refusal must not fit, and must quote the reason.
     */
    @Test
    void aRefusalHasTheFieldsTheRustWorkerReadsAndQuotesTheReasonWhereItsReadingFails() throws Exception {
        Registration.Reply refusal = Registration.Reply.refused("rw1", Registration.Reply.API_KEY,
                "invalid api_key: set varpulis.cluster.api-key");

        JsonNode written = json.readTree(json.writeValueAsBytes(refusal));

        assertThat(written.path("worker_id").asText()).isEqualTo("rw1");
        assertThat(written.path("status").asText()).isEqualTo("refused");
        assertThat(written.path("error").asText()).isEqualTo("invalid api_key: set varpulis.cluster.api-key");
        assertThat(written.path("heartbeat_interval_secs").isTextual()).as("not a u64: the Rust reading fails")
            .isTrue();
        assertThat(written.path("heartbeat_interval_secs").asText())
            .isEqualTo("refused: invalid api_key: set " + "varpulis.cluster.api-key");
        Registration.Reply read = json.readValue(json.writeValueAsBytes(refusal), Registration.Reply.class);
        assertThat(read.error()).startsWith("invalid api_key");
        assertThat(read.heartbeatIntervalSecs()).as("our worker reads only a number there").isNull();
        assertThat(read.isFinal()).isTrue();
    }

    @Test
    void anAcceptanceIsTheRustShapeAndReadsBackAsOurs() throws Exception {
        String written = json.writeValueAsString(Registration.Reply.registered("w1", 5));

        assertThat(json.readTree(written))
            .isEqualTo(json.readTree("{\"worker_id\":\"w1\",\"status\":\"registered\",\"heartbeat_interval_secs\":5}"));
        assertThat(json.readValue(written, Registration.Reply.class).heartbeatIntervalSecs()).isEqualTo(5L);
    }

    @Test
    void ourRegistrationCarriesAnApiKeyAndTheCapabilitiesTheRustCoordinatorIgnores() throws Exception {
        Registration.Request request = new Registration.Request("w1", "h:8080", "", new Registration.Capacity(2, 0, 32),
                "jetstream", "default", WorkerCapabilities.of(List.of("passthrough", "filter")));

        JsonNode written = json.readTree(json.writeValueAsBytes(request));

        assertThat(written.has("api_key")).isTrue();
        assertThat(written.path("capabilities"))
            .isEqualTo(json.readTree("{\"protocol\":1,\"processor_types\":[\"filter\",\"passthrough\"]}"));
    }

    @Test
    void aRouteMayAskForTheFlatShapeAndNothingElse() throws Exception {
        PipelineGroupSpec.RouteSpec flat = json.readValue(
                "{\"from_pipeline\": \"a\", \"to_pipeline\": \"b\", " + "\"payload_shape\": \"flat\"}",
                PipelineGroupSpec.RouteSpec.class);

        assertThat(flat.isFlat()).isTrue();
        assertThat(new PipelineGroupSpec.RouteSpec("a", "b", null).isFlat()).as("nested by default").isFalse();
        assertThat(json.writeValueAsString(new PipelineGroupSpec.RouteSpec("a", "b", null)))
            .doesNotContain("payload_shape");
        assertThatThrownBy(() -> new PipelineGroupSpec.RouteSpec("a", "b", null, "rust"))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("payload_shape is 'rust'; it must be nested (the default) or flat");
    }

}
