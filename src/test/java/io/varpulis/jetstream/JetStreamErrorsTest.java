package io.varpulis.jetstream;

import io.nats.client.JetStreamApiException;
import io.nats.client.api.ApiResponse;
import io.nats.client.support.JsonParseException;
import io.nats.client.support.JsonParser;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which create refusals are about room for max_bytes (the storage fallback, issue 25) and
 * which are not, as nats-server words them (the cluster case runs on real servers in
 * {@code SmallStoreOnClusterTest}).
 */
class JetStreamErrorsTest {

    @Test
    void noSuitablePeersIsAboutStorageOnlyWhenItsDescriptionSaysSo() {
        assertThat(JetStreamErrors
            .isStorageRefused(api(10005, "no suitable peers for placement, insufficient " + "storage"))).isTrue();
        assertThat(JetStreamErrors.isStorageRefused(api(10005, "no suitable peers for placement")))
            .as("too few servers, or a peer offline: not a max_bytes problem")
            .isFalse();
        assertThat(JetStreamErrors.isStorageRefused(api(10005, "insufficient resources, peer offline"))).isFalse();
    }

    @Test
    void aSingleServersStorageRefusalsAreAboutStorage() {
        assertThat(JetStreamErrors.isStorageRefused(api(10047, "insufficient storage resources available"))).isTrue();
        assertThat(JetStreamErrors.isStorageRefused(api(10023, "insufficient resources"))).isTrue();
        assertThat(JetStreamErrors.isStorageRefused(api(10074, "replicas > 1 not supported in non-clustered mode")))
            .isFalse();
    }

    /**
     * An API error as the server sends it, {@code {"error": {"code": 400, "err_code": N,
     * "description": ...}}}.
     */
    private static JetStreamApiException api(int code, String description) {
        try {
            return new JetStreamApiException(new ApiResponse<Object>(JsonParser.parse("{\"error\": {\"code\": 400, "
                    + "\"err_code\": " + code + ", \"description\": \"" + description + "\"}}")) {
            });
        }
        catch (JsonParseException e) {
            throw new IllegalStateException(e);
        }
    }

}
