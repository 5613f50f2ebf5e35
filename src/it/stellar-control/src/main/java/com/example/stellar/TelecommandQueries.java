package com.example.stellar;

import io.varpulis.messaging.NatsListener;
import org.springframework.stereotype.Component;

/** Answers whether a telecommand reached its spacecraft: a listener whose return value is the reply to a request. */
@Component
public class TelecommandQueries {

    private final TelecommandAudit audit;

    public TelecommandQueries(TelecommandAudit audit) {
        this.audit = audit;
    }

    @NatsListener(id = "tc-query", subject = "stellar.tc.query.sent")
    public boolean wasSent(String tcId) {
        return audit.wasSent(tcId);
    }
}
