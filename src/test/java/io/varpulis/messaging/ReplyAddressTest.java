package io.varpulis.messaging;

import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import io.varpulis.nats.Substrate;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.Requester;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Where a listener's return value goes (SPEC section 19), one rule per case: the
 * request's own reply subject first, {@code sendTo} otherwise, nowhere a poison. Pure.
 */
class ReplyAddressTest {

    @Test
    void aStoredRequestIsAnsweredOnTheSubjectItsHeaderNames_evenWhenTheListenerHasASendTo() {
        Delivery request = delivery(Substrate.JETSTREAM, "varpulis.reply.abc.1", "$JS.ACK.T.prices.1.1.1.0.0");
        assertThat(ReplyAddress.of(request, "prices", "")).isEqualTo("varpulis.reply.abc.1");
        assertThat(ReplyAddress.of(request, "prices", "prices.out")).isEqualTo("varpulis.reply.abc.1");
    }

    @Test
    void aCoreRequestIsAnsweredOnItsReplyTo_whenTheListenerHasNoSendTo() {
        assertThat(ReplyAddress.of(delivery(Substrate.CORE, null, "_INBOX.abc.def"), "prices", ""))
            .isEqualTo("_INBOX.abc.def");
    }

    @Test
    void onCoreAListenerWithASendToKeepsIt_forAJetStreamPublishersPubAckInboxLooksLikeARequest() {
        assertThat(ReplyAddress.of(delivery(Substrate.CORE, null, "_INBOX.abc.def"), "prices", "prices.out"))
            .isEqualTo("prices.out");
    }

    @Test
    void aJetStreamDeliverysReplyToIsItsAckSubject_neverAnAddress() {
        assertThat(ReplyAddress.of(delivery(Substrate.JETSTREAM, null, "$JS.ACK.T.prices.1.1.1.0.0"), "prices",
                "prices.out"))
            .isEqualTo("prices.out");
        assertThatThrownBy(
                () -> ReplyAddress.of(delivery(Substrate.JETSTREAM, null, "$JS.ACK.T.prices.1.1.1.0.0"), "prices", ""))
            .isInstanceOf(ReplyAddress.Missing.class);
    }

    @Test
    void aValueWithNowhereToGoNamesTheListenerAndTheFixes() {
        assertThatThrownBy(() -> ReplyAddress.of(delivery(Substrate.CORE, null, null), "prices", ""))
            .isInstanceOf(ReplyAddress.Missing.class)
            .hasMessageContaining("listener prices")
            .hasMessageContaining("NatsTemplate.sendAndReceive")
            .hasMessageContaining("varpulis.nats.listeners.prices.send-to");
    }

    private static Delivery delivery(Substrate substrate, String replyHeader, String replyTo) {
        Headers headers = new Headers();
        if (replyHeader != null) {
            headers.put(Requester.REPLY_TO_HEADER, replyHeader);
        }
        NatsMessage message = NatsMessage.builder()
            .subject("prices.x")
            .replyTo(replyTo)
            .headers(headers.isEmpty() ? null : headers)
            .data(new byte[0])
            .build();
        return new Delivery(message) {
            @Override
            public String messageId() {
                return "T:1";
            }

            @Override
            public long attempt() {
                return 1;
            }

            @Override
            public long maxDeliver() {
                return 5;
            }

            @Override
            public Duration ackWait() {
                return Duration.ofSeconds(30);
            }

            @Override
            public Optional<Instant> storedAt() {
                return Optional.empty();
            }

            @Override
            public String stream() {
                return null;
            }

            @Override
            public long streamSequence() {
                return 0;
            }

            @Override
            public Substrate substrate() {
                return substrate;
            }

            @Override
            protected void doAck() {
            }

            @Override
            protected void doNak(Duration delay) {
            }
        };
    }

}
