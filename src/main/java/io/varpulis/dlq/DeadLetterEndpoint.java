package io.varpulis.dlq;

import io.varpulis.support.NodeRole;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import java.security.Principal;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Actuator endpoint {@code dlq}, the dead-letter console of {@code VARPULIS_DLQ}:
 * <ul>
 * <li>{@code GET /actuator/dlq?unit=&since=&until=&before=&limit=}: a
 * {@link DeadLetterPage}, newest first ({@code since}/{@code until}: RFC 3339 or unix
 * seconds; {@code before}: the previous page's {@code next_before});</li>
 * <li>{@code GET /actuator/dlq/{sequence}}: one {@link ParkedEvent} with its whole death
 * envelope;</li>
 * <li>{@code POST /actuator/dlq} with {@code {"sequence": 42}}, {@code {"unit":
 * "detect"}} or {@code {"all": true}}: replays, answers a {@link ReplayReport};</li>
 * <li>{@code DELETE /actuator/dlq/{sequence}} and
 * {@code DELETE /actuator/dlq?unit=detect}: purges, answers a {@link PurgeReport}.</li>
 * </ul>
 * Errors are {@code {"error": "..."}} with 400 (bad input), 403 (writes disabled:
 * {@code varpulis.dlq.write-enabled}), 404 (no such sequence) or 503 (JetStream did not
 * answer). The audit line names the authenticated principal and its roles, or
 * {@code anonymous}.
 */
@Endpoint(id = "dlq")
public class DeadLetterEndpoint {

    private final DeadLetterConsole console;

    /**
     * @param console the console this endpoint exposes
     */
    public DeadLetterEndpoint(DeadLetterConsole console) {
        this.console = console;
    }

    /**
     * @param unit only this unit's events, or all
     * @param since only events parked at or after this time
     * @param until only events parked before this time
     * @param before only events below this DLQ sequence (paging cursor)
     * @param limit page size
     * @return 200 with a {@link DeadLetterPage}, or an error
     */
    @ReadOperation
    public WebEndpointResponse<Object> list(@Nullable String unit, @Nullable String since, @Nullable String until,
            @Nullable Long before, @Nullable Integer limit) {
        return respond(() -> console.list(DeadLetterQuery.of(unit, since, until, before, limit)));
    }

    /**
     * @param sequence the DLQ sequence
     * @return 200 with the {@link ParkedEvent}, 404 when there is none
     */
    @ReadOperation
    public WebEndpointResponse<Object> show(@Selector long sequence) {
        return respond(() -> console.show(sequence));
    }

    /**
     * @param sequence one event's DLQ sequence
     * @param unit one unit's events
     * @param all {@code true} for every parked event
     * @param security the caller's identity, for the audit line
     * @return 200 with a {@link ReplayReport}, 400 unless exactly one target is given,
     * 403 when writes are disabled
     */
    @WriteOperation
    public WebEndpointResponse<Object> replay(@Nullable Long sequence, @Nullable String unit, @Nullable Boolean all,
            SecurityContext security) {
        return respond(() -> console.replay(new ReplayRequest(sequence, unit, all), caller(security)));
    }

    /**
     * @param sequence the DLQ sequence
     * @param security the caller's identity, for the audit line
     * @return 200 with a {@link PurgeReport}, 403 when writes are disabled, 404 when
     * there is none
     */
    @DeleteOperation
    public WebEndpointResponse<Object> purge(@Selector long sequence, SecurityContext security) {
        return respond(() -> console.purge(sequence, caller(security)));
    }

    /**
     * @param unit the unit whose events are deleted
     * @param security the caller's identity, for the audit line
     * @return 200 with a {@link PurgeReport}, 400 without a unit, 403 when writes are
     * disabled
     */
    @DeleteOperation
    public WebEndpointResponse<Object> purgeUnit(@Nullable String unit, SecurityContext security) {
        return respond(() -> console.purgeUnit(unit, caller(security)));
    }

    private static Caller caller(SecurityContext security) {
        Principal principal = security == null ? null : security.getPrincipal();
        if (principal == null) {
            return Caller.anonymous();
        }
        List<String> roles = Arrays.stream(NodeRole.values())
            .map(NodeRole::name)
            .filter(security::isUserInRole)
            .toList();
        return new Caller(principal.getName(), roles, null);
    }

    private static WebEndpointResponse<Object> respond(Supplier<Object> operation) {
        try {
            return new WebEndpointResponse<>(operation.get(), WebEndpointResponse.STATUS_OK);
        }
        catch (IllegalArgumentException e) {
            return error(WebEndpointResponse.STATUS_BAD_REQUEST, e);
        }
        catch (DeadLetterWritesDisabledException e) {
            return error(403, e);
        }
        catch (DeadLetterBusyException e) {
            return error(409, e);
        }
        catch (ParkedEventNotFoundException e) {
            return error(WebEndpointResponse.STATUS_NOT_FOUND, e);
        }
        catch (DeadLetterUnavailableException e) {
            return error(WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE, e);
        }
    }

    private static WebEndpointResponse<Object> error(int status, RuntimeException e) {
        return new WebEndpointResponse<>(Map.of("error", e.getMessage()), status);
    }

}
