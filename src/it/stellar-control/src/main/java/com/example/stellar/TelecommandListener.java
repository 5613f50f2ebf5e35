package com.example.stellar;

import io.varpulis.messaging.DeliveryMetadata;
import io.varpulis.messaging.NatsHeader;
import io.varpulis.messaging.NatsListener;
import io.varpulis.messaging.OutboundEvent;
import org.springframework.stereotype.Component;

/** Sends each submitted telecommand to its spacecraft and publishes what became of it: a listener that replies. */
@Component
public class TelecommandListener {

    private final Uplink uplink;

    public TelecommandListener(Uplink uplink) {
        this.uplink = uplink;
    }

    @NatsListener(id = "tc-submit", subject = "stellar.tc.submit.>", notRetryable = InvalidTelecommandException.class)
    public OutboundEvent submit(Telecommand tc, @NatsHeader("Operator") String operator, DeliveryMetadata delivery)
            throws InterruptedException {
        if (tc.tcId() == null || tc.target() == null || tc.command() == null) {
            throw new InvalidTelecommandException("tc_id, target and command are required: " + tc);
        }
        uplink.send(tc);
        return OutboundEvent.to("stellar.tc.evt." + tc.target() + "." + tc.tcId(),
                        new TelecommandEvent(tc.tcId(), tc.target(), tc.command(), "SENT", delivery.attempt()))
                .withMessageId(tc.tcId())
                .withHeader("Operator", operator == null ? "unknown" : operator);
    }
}
