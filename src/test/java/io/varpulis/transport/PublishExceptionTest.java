package io.varpulis.transport;

import io.nats.client.JetStreamApiException;
import io.nats.client.api.ApiResponse;
import io.nats.client.support.JsonParseException;
import io.nats.client.support.JsonParser;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A broker that is away is told from a stream that says no (SPEC section 9): the route
 * ingress waits out the first and treats the second as a failed apply.
 */
class PublishExceptionTest {

    @Test
    void noRespondersTimeoutsAndAReconnectingConnectionMeanTheBrokerIsUnavailable() {
        for (Throwable error : new Throwable[] {
                new CompletionException(new RuntimeException(
                        new IOException("Error Publishing: 503 No Responders Available For Request"))),
                new TimeoutException(), new CancellationException("Future cancelled, connection closing."),
                new IllegalStateException("Connection is Closed"), api(10008), api(10009), api(10158), null }) {
            assertThat(PublishException.classify(error)).as(String.valueOf(error))
                .isEqualTo(PublishException.Kind.UNAVAILABLE);
        }
    }

    @Test
    void aJetStreamRefusalOrAMessageOverMaxPayloadIsRefused() {
        assertThat(PublishException.classify(new RuntimeException(api(10071))))
            .isEqualTo(PublishException.Kind.REFUSED);
        assertThat(PublishException.classify(new IllegalArgumentException(
                "Message payload size exceed server " + "configuration 1048576 vs 2000000")))
            .isEqualTo(PublishException.Kind.REFUSED);
        PublishException refused = new PublishException("s", "no", new RuntimeException(api(10071)));
        assertThat(refused.apiErrorCode()).isEqualTo(10071);
        assertThat(refused.isUnavailable()).isFalse();
        assertThat(refused.late()).isCompletedExceptionally();
        assertThat(PublishException.classify(new CompletionException(refused)))
            .isEqualTo(PublishException.Kind.REFUSED);
    }

    /**
     * An API error as the server sends it, {@code {"error": {"code": 400, "err_code": N,
     * ...}}}.
     */
    private static JetStreamApiException api(int code) {
        try {
            return new JetStreamApiException(new ApiResponse<Object>(JsonParser
                .parse("{\"error\": {\"code\": 400, " + "\"err_code\": " + code + ", \"description\": \"refused\"}}")) {
            });
        }
        catch (JsonParseException e) {
            throw new IllegalStateException(e);
        }
    }

}
