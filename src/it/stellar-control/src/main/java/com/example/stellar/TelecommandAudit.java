package com.example.stellar;

import io.varpulis.messaging.NatsListener;
import org.springframework.stereotype.Component;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Remembers every telecommand that reached its spacecraft: a listener that returns nothing. */
@Component
public class TelecommandAudit {

    private final Set<String> sent = ConcurrentHashMap.newKeySet();

    @NatsListener(id = "tc-audit", subject = "stellar.tc.evt.>")
    public void record(TelecommandEvent event) {
        sent.add(event.tcId());
    }

    public boolean wasSent(String tcId) {
        return sent.contains(tcId);
    }
}
