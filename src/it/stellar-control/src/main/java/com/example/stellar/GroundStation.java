package com.example.stellar;

import io.varpulis.messaging.NatsTemplate;
import io.varpulis.messaging.OutboundEvent;
import io.varpulis.transport.PublishReceipt;
import org.springframework.stereotype.Service;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** Submits telecommands and asks about them: publishing, and request-reply, with the template. */
@Service
public class GroundStation {

    private final NatsTemplate nats;

    public GroundStation(NatsTemplate nats) {
        this.nats = nats;
    }

    /**
     * @return completes once TC_COMMANDS stored the command (its PubAck); {@code duplicate()} when that tc_id was
     * already stored within the stream's duplicate window, so a retried submit is applied once
     */
    public CompletableFuture<PublishReceipt> submit(Telecommand tc, String operator) {
        return nats.send(OutboundEvent.to("stellar.tc.submit." + tc.target(), tc)
                .withMessageId(tc.tcId())
                .withHeader("Operator", operator));
    }

    /**
     * @return whether the telecommand reached its spacecraft, as tc-query answers; fails with NatsReplyTimeoutException
     * when no answer comes within 2 s. The request and its reply are stored (TC_QUERIES, TC_REPLIES), so a query that
     * reaches the service while it restarts is answered once it is back
     */
    public CompletableFuture<Boolean> wasSent(String tcId) {
        return nats.sendAndReceive("stellar.tc.query.sent", tcId, Boolean.class, Duration.ofSeconds(2));
    }
}
