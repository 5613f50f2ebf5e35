package io.varpulis.observation;

import io.micrometer.observation.transport.ReceiverContext;
import io.nats.client.Message;
import io.nats.client.impl.Headers;

/**
 * The context of one core request served (a command on a worker, a registration on a
 * coordinator): its carrier is the request, whose NATS headers Spring Boot's configured
 * propagation reads the requester's trace context from.
 */
public class NatsRequestContext extends ReceiverContext<Message> {

    /**
     * @param request the request
     */
    public NatsRequestContext(Message request) {
        super(NatsRequestContext::header);
        setCarrier(request);
        setRemoteServiceName("nats");
    }

    private static String header(Message request, String key) {
        Headers headers = request.getHeaders();
        return headers == null ? null : headers.getFirst(key);
    }

    /**
     * @return the subject the request came on
     */
    public String subject() {
        return getCarrier().getSubject();
    }

}
