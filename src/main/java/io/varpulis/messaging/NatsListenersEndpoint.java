package io.varpulis.messaging;

import io.nats.client.api.ConsumerInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Actuator endpoint {@code natslisteners} over the {@link NatsListenerEndpointRegistry}
 * (SPEC section 19):
 * <ul>
 * <li>{@code GET /actuator/natslisteners}: every listener by id;</li>
 * <li>{@code GET /actuator/natslisteners/{id}}: one, JSON {@code {"id", "state":
 * "RUNNING"|"PAUSED"|"STOPPED", "running", "paused", "autoStartup", "subject", "stream",
 * "durable", "inFlight", "pending", "ackPending", "lastError": {"at", "stage", "error"}}}
 * ({@code pending} and {@code ackPending} as the server counts them, absent when it
 * cannot be asked);</li>
 * <li>{@code POST /actuator/natslisteners/{id}} with {@code {"action": "pause"}},
 * {@code "resume"}, {@code "stop"} or {@code "start"}: does it and answers the listener
 * as above; 400 for another action, 404 for an unknown id.</li>
 * </ul>
 * Secured as every Actuator endpoint is (exposure, access, Spring Security), and
 * read-only unless its access is raised
 * ({@code management.endpoint.natslisteners.access=unrestricted}); each write is logged
 * with the caller's principal.
 */
@Endpoint(id = "natslisteners", defaultAccess = Access.READ_ONLY)
public class NatsListenersEndpoint {

    private static final Logger log = LoggerFactory.getLogger(NatsListenersEndpoint.class);

    private final NatsListenerEndpointRegistry registry;

    /**
     * @param registry the listeners
     */
    public NatsListenersEndpoint(NatsListenerEndpointRegistry registry) {
        this.registry = registry;
    }

    /**
     * @return every listener by id
     */
    @ReadOperation
    public Map<String, Map<String, Object>> listeners() {
        Map<String, Map<String, Object>> all = new LinkedHashMap<>();
        registry.getListenerContainers().forEach(container -> all.put(container.id(), describe(container)));
        return all;
    }

    /**
     * @param id a listener's id
     * @return 200 with the listener, 404 when there is none
     */
    @ReadOperation
    public WebEndpointResponse<Object> listener(@Selector String id) {
        NatsListenerContainer container = registry.getListenerContainer(id);
        return container == null ? notFound(id) : new WebEndpointResponse<>(describe(container));
    }

    /**
     * @param id a listener's id
     * @param action {@code pause}, {@code resume}, {@code stop} or {@code start}
     * @param security the caller, for the log
     * @return 200 with the listener after the action, 400 for an unknown action, 404 for
     * an unknown id
     */
    @WriteOperation
    public WebEndpointResponse<Object> control(@Selector String id, String action, SecurityContext security) {
        NatsListenerContainer container = registry.getListenerContainer(id);
        if (container == null) {
            return notFound(id);
        }
        String principal = security == null || security.getPrincipal() == null ? "anonymous"
                : security.getPrincipal().getName();
        switch (action == null ? "" : action.toLowerCase(Locale.ROOT)) {
            case "pause" -> container.pause();
            case "resume" -> container.resume();
            case "stop" -> container.stop();
            case "start" -> container.start();
            default -> {
                return new WebEndpointResponse<>(
                        Map.of("error", "unknown action " + action + "; one of pause, resume, stop, start"),
                        WebEndpointResponse.STATUS_BAD_REQUEST);
            }
        }
        log.info("listener {}: {} by {} through the natslisteners endpoint, now {}", id, action, principal,
                container.state());
        return new WebEndpointResponse<>(describe(container));
    }

    private static Map<String, Object> describe(NatsListenerContainer container) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("id", container.id());
        details.put("state", container.state().name());
        details.put("running", container.isRunning());
        details.put("paused", container.isPaused());
        details.put("autoStartup", container.isAutoStartup());
        details.put("subject", container.consumer().filterSubject());
        details.put("stream", container.consumer().stream());
        details.put("durable", container.consumer().durable());
        details.put("inFlight", container.inFlight());
        Optional<ConsumerInfo> info = container.consumerInfo();
        info.ifPresent(consumer -> {
            details.put("pending", consumer.getNumPending());
            details.put("ackPending", consumer.getNumAckPending());
        });
        container.lastError()
            .ifPresent(error -> details.put("lastError",
                    Map.of("at", error.at().toString(), "stage", error.stage(), "error", error.error())));
        return details;
    }

    private static WebEndpointResponse<Object> notFound(String id) {
        return new WebEndpointResponse<>(Map.of("error", "no listener with id " + id),
                WebEndpointResponse.STATUS_NOT_FOUND);
    }

}
