package com.example.stellar;

import io.varpulis.messaging.NatsHeaders;
import io.varpulis.messaging.NatsListener;
import org.springframework.messaging.Message;
import org.springframework.stereotype.Component;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Archives what became of each telecommand, up to 100 events of one pull at a time: a batch listener. */
@Component
public class TelecommandArchive {

    private final Map<String, Long> archived = new ConcurrentHashMap<>();

    @NatsListener(id = "tc-archive", subject = "stellar.tc.evt.>", batch = true, batchSize = 100)
    public void archive(List<Message<TelecommandEvent>> events) {
        for (Message<TelecommandEvent> event : events) {
            archived.put(event.getPayload().tcId(), (Long) event.getHeaders().get(NatsHeaders.STREAM_SEQUENCE));
        }
    }

    public Long sequenceOf(String tcId) {
        return archived.get(tcId);
    }
}
