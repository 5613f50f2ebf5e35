package io.varpulis.web;

import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.varpulis.dlq.Caller;
import io.varpulis.dlq.DeadLetterBusyException;
import io.varpulis.dlq.DeadLetterConsole;
import io.varpulis.dlq.DeadLetterPage;
import io.varpulis.dlq.DeadLetterQuery;
import io.varpulis.dlq.DeadLetterUnavailableException;
import io.varpulis.dlq.DeadLetterWritesDisabledException;
import io.varpulis.dlq.ParkedEvent;
import io.varpulis.dlq.ParkedEventNotFoundException;
import io.varpulis.dlq.PurgeReport;
import io.varpulis.dlq.ReplayReport;
import io.varpulis.dlq.ReplayRequest;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The dead-letter console on the coordinator's operator API, under
 * {@code /api/v1/cluster/dlq}; the same operations as the Actuator endpoint {@code dlq}:
 * <ul>
 * <li>{@code GET /api/v1/cluster/dlq?unit=&since=&until=&before=&limit=}: a
 * {@link DeadLetterPage}, newest first;</li>
 * <li>{@code GET /api/v1/cluster/dlq/{sequence}}: one {@link ParkedEvent} with its whole
 * death envelope;</li>
 * <li>{@code POST /api/v1/cluster/dlq/replay} with {@code {"sequence": 42}},
 * {@code {"unit": "detect"}} or {@code {"all": true}}: a {@link ReplayReport};</li>
 * <li>{@code DELETE /api/v1/cluster/dlq/{sequence}} and
 * {@code DELETE /api/v1/cluster/dlq?unit=detect}: a {@link PurgeReport}.</li>
 * </ul>
 * Errors are {@code {"error": "..."}} with 400 (bad input), 403 (writes disabled:
 * {@code varpulis.dlq.write-enabled}), 404 (no such sequence) or 503 (JetStream did not
 * answer). The audit line names the authenticated principal and its roles
 * ({@link io.varpulis.support.AuditLog}); a body that is not the expected JSON is
 * answered by {@link ApiErrorAdvice}.
 */
@RestController
@RequestMapping("/api/v1/cluster/dlq")
public class DeadLetterController {

    private final DeadLetterConsole console;

    /**
     * @param console the console
     */
    public DeadLetterController(DeadLetterConsole console) {
        this.console = console;
    }

    /**
     * @param unit only this unit's events
     * @param since only events parked at or after this time (RFC 3339 or unix seconds)
     * @param until only events parked before this time
     * @param before only events below this DLQ sequence: the previous page's
     * {@code next_before}
     * @param limit page size
     * @return one page, newest first
     */
    @ApiResponse(responseCode = "200", description = "one page, newest first", useReturnTypeSchema = true)
    @ApiResponse(responseCode = "400", description = "a bad time, sequence or limit")
    @ApiResponse(responseCode = "503", description = "JetStream did not answer")
    @GetMapping
    public DeadLetterPage list(@RequestParam(required = false) String unit,
            @RequestParam(required = false) String since, @RequestParam(required = false) String until,
            @RequestParam(required = false) Long before, @RequestParam(required = false) Integer limit) {
        return console.list(DeadLetterQuery.of(unit, since, until, before, limit));
    }

    /**
     * @param sequence the DLQ sequence
     * @return the parked event, 404 when there is none
     */
    @ApiResponse(responseCode = "200", description = "the parked event with its death envelope",
            useReturnTypeSchema = true)
    @ApiResponse(responseCode = "400", description = "a sequence below 1")
    @ApiResponse(responseCode = "404", description = "no parked event at that sequence")
    @ApiResponse(responseCode = "503", description = "JetStream did not answer")
    @GetMapping("/{sequence}")
    public ParkedEvent show(@PathVariable long sequence) {
        return console.show(sequence);
    }

    /**
     * @param replay exactly one of {@code sequence}, {@code unit}, {@code all: true}
     * @param request the HTTP request, for the audit line
     * @return what was replayed and what failed
     */
    @ApiResponse(responseCode = "200", description = "what was replayed and what failed", useReturnTypeSchema = true)
    @ApiResponse(responseCode = "400", description = "not exactly one of sequence, unit, all: true")
    @ApiResponse(responseCode = "403",
            description = "the principal lacks the role, or DLQ writes are disabled " + "(varpulis.dlq.write-enabled)")
    @ApiResponse(responseCode = "404", description = "no parked event at that sequence")
    @ApiResponse(responseCode = "503", description = "JetStream did not answer")
    @PostMapping("/replay")
    public ReplayReport replay(@RequestBody ReplayRequest replay, HttpServletRequest request) {
        return console.replay(replay, caller(request));
    }

    /**
     * @param sequence the DLQ sequence
     * @param request the HTTP request, for the audit line
     * @return {@code purged = 1}, 404 when there is none
     */
    @ApiResponse(responseCode = "200", description = "purged = 1", useReturnTypeSchema = true)
    @ApiResponse(responseCode = "400", description = "a sequence below 1")
    @ApiResponse(responseCode = "403",
            description = "the principal lacks the role, or DLQ writes are disabled " + "(varpulis.dlq.write-enabled)")
    @ApiResponse(responseCode = "404", description = "no parked event at that sequence")
    @ApiResponse(responseCode = "409", description = "a replay on this node is publishing that event")
    @ApiResponse(responseCode = "503", description = "JetStream did not answer")
    @DeleteMapping("/{sequence}")
    public PurgeReport purge(@PathVariable long sequence, HttpServletRequest request) {
        return console.purge(sequence, caller(request));
    }

    /**
     * @param unit the unit whose parked events are deleted
     * @param request the HTTP request, for the audit line
     * @return how many were deleted
     */
    @ApiResponse(responseCode = "200", description = "how many were deleted", useReturnTypeSchema = true)
    @ApiResponse(responseCode = "400", description = "no unit, or a blank one")
    @ApiResponse(responseCode = "403",
            description = "the principal lacks the role, or DLQ writes are disabled " + "(varpulis.dlq.write-enabled)")
    @ApiResponse(responseCode = "503", description = "JetStream did not answer")
    @DeleteMapping
    public PurgeReport purgeUnit(@RequestParam String unit, HttpServletRequest request) {
        return console.purgeUnit(unit, caller(request));
    }

    @ExceptionHandler(IllegalArgumentException.class)
    ResponseEntity<ApiError> badRequest(IllegalArgumentException e) {
        return error(HttpStatus.BAD_REQUEST, e);
    }

    @ExceptionHandler(MissingServletRequestParameterException.class)
    ResponseEntity<ApiError> missing(MissingServletRequestParameterException e) {
        return ResponseEntity.status(HttpStatus.BAD_REQUEST)
            .body(new ApiError("the query parameter '" + e.getParameterName() + "' is required" + (e.getParameterName()
                .equals("unit")
                        ? ": DELETE /api/v1/cluster/dlq?unit=<pipeline, or coordinator:{id}> purges one unit's parked events, "
                                + "DELETE /api/v1/cluster/dlq/<sequence> one event; the whole DLQ is not purged at once"
                        : "")));
    }

    @ExceptionHandler(DeadLetterWritesDisabledException.class)
    ResponseEntity<ApiError> forbidden(DeadLetterWritesDisabledException e) {
        return error(HttpStatus.FORBIDDEN, e);
    }

    @ExceptionHandler(DeadLetterBusyException.class)
    ResponseEntity<ApiError> busy(DeadLetterBusyException e) {
        return error(HttpStatus.CONFLICT, e);
    }

    @ExceptionHandler(ParkedEventNotFoundException.class)
    ResponseEntity<ApiError> notFound(ParkedEventNotFoundException e) {
        return error(HttpStatus.NOT_FOUND, e);
    }

    @ExceptionHandler(DeadLetterUnavailableException.class)
    ResponseEntity<ApiError> unavailable(DeadLetterUnavailableException e) {
        return error(HttpStatus.SERVICE_UNAVAILABLE, e);
    }

    private static Caller caller(HttpServletRequest request) {
        return Principals.caller(request);
    }

    private static ResponseEntity<ApiError> error(HttpStatus status, Exception e) {
        return ResponseEntity.status(status).body(new ApiError(e.getMessage()));
    }

}
