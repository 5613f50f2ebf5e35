package io.varpulis.web;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.ErrorResponse;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.resource.NoResourceFoundException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.exc.UnrecognizedPropertyException;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The node's answer to requests Spring MVC refuses before or around a handler (issue 15):
 * every one is {@code {"error": "..."}} with the status Spring chose, never Spring Boot's
 * default error JSON. 404 for an unknown path, 405 for an unknown method (with the
 * allowed ones), 415 for a body that is not JSON, 400 for a body that is not the expected
 * JSON (an unknown field is named), 413 for a body over
 * {@code varpulis.security.max-request-size}. A refused write is audited with the reason
 * ({@link RequestAudit}). Registered on cluster nodes only, so a host application's own
 * controllers keep their error handling.
 */
@RestControllerAdvice
public class ApiErrorAdvice {

    /** Jackson's "Cannot deserialize value of type `T` from X": T and X. */
    private static final Pattern WRONG_TYPE = Pattern
        .compile("Cannot deserialize value of type `([^`]+)` from " + "([A-Za-z_ ]+?)(?: \\(|$|;|:)");

    /**
     * @param e an unknown path
     * @param request the request, for the audit line
     * @return 404
     */
    @ExceptionHandler(NoResourceFoundException.class)
    public ResponseEntity<ApiError> notFound(NoResourceFoundException e, HttpServletRequest request) {
        return answer(request, HttpStatus.NOT_FOUND, HttpHeaders.EMPTY, "no such path: /" + e.getResourcePath());
    }

    /**
     * @param e a method the path does not take
     * @param request the request, for the audit line
     * @return 405 with an {@code Allow} header
     */
    @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
    public ResponseEntity<ApiError> methodNotAllowed(HttpRequestMethodNotSupportedException e,
            HttpServletRequest request) {
        String allowed = e.getSupportedHttpMethods() == null ? ""
                : e.getSupportedHttpMethods().stream().map(Object::toString).sorted().collect(Collectors.joining(", "));
        return answer(request, HttpStatus.METHOD_NOT_ALLOWED, e.getHeaders(),
                e.getMethod() + " is not allowed here" + (allowed.isEmpty() ? "" : "; allowed: " + allowed));
    }

    /**
     * @param e a body that is not JSON
     * @param request the request, for the audit line
     * @return 415
     */
    @ExceptionHandler(HttpMediaTypeNotSupportedException.class)
    public ResponseEntity<ApiError> unsupportedMediaType(HttpMediaTypeNotSupportedException e,
            HttpServletRequest request) {
        return answer(request, HttpStatus.UNSUPPORTED_MEDIA_TYPE, HttpHeaders.EMPTY,
                "send JSON with Content-Type: application/json");
    }

    /**
     * @param e a body that is too large, or not the expected JSON
     * @param request the request, for the audit line
     * @return 413 or 400
     */
    @ExceptionHandler(HttpMessageNotReadableException.class)
    public ResponseEntity<ApiError> unreadable(HttpMessageNotReadableException e, HttpServletRequest request) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof RequestSizeLimitFilter.RequestTooLargeException tooLarge) {
                return answer(request, HttpStatus.CONTENT_TOO_LARGE, HttpHeaders.EMPTY, tooLarge.getMessage());
            }
            if (cause instanceof UnrecognizedPropertyException unknown) {
                return answer(request, HttpStatus.BAD_REQUEST, HttpHeaders.EMPTY,
                        "unknown field '" + unknown.getPropertyName() + "'" + knownFields(unknown));
            }
        }
        Throwable cause = e.getMostSpecificCause();
        String detail = cause instanceof JacksonException json ? readable(json)
                : cause == e || cause.getMessage() == null ? "the body is missing" : cause.getMessage();
        return answer(request, HttpStatus.BAD_REQUEST, HttpHeaders.EMPTY,
                "the request body is not the expected " + "JSON: " + detail.lines().findFirst().orElse(detail));
    }

    /**
     * Jackson's message in a user's words: the field it was reading
     * ({@code at 'fields'}), where ({@code line 1,
     * column 30}), and what was expected in JSON's terms (an object, a string...), never
     * a Java type's name or the parser's settings.
     */
    static String readable(JacksonException e) {
        String message = e.getOriginalMessage() == null ? e.getClass().getSimpleName() : e.getOriginalMessage();
        Matcher type = WRONG_TYPE.matcher(message);
        if (type.find()) {
            message = "expected " + jsonKind(type.group(1)) + ", got "
                    + type.group(2)
                        .toLowerCase(Locale.ROOT)
                        .replace(" value", "")
                        .replace("start_array token", "an array")
                        .replace("start_object token", "an object");
        }
        String path = e.getPath()
            .stream()
            .map(r -> r.getPropertyName() != null ? r.getPropertyName() : "[" + r.getIndex() + "]")
            .collect(Collectors.joining("."))
            .replace(".[", "[");
        TokenStreamLocation where = e.getLocation();
        return message.lines().findFirst().orElse(message) + (path.isEmpty() ? "" : " (at '" + path + "')")
                + (where == null || where.getLineNr() <= 0 ? ""
                        : " at line " + where.getLineNr() + ", column " + where.getColumnNr());
    }

    private static String jsonKind(String javaType) {
        String raw = javaType.replaceFirst("<.*", "");
        if (raw.endsWith("Map") || raw.endsWith("Node") && raw.contains("Object")) {
            return "an object";
        }
        if (raw.endsWith("List") || raw.endsWith("Set") || raw.endsWith("[]") || raw.endsWith("Collection")) {
            return "an array";
        }
        if (raw.endsWith("String")) {
            return "a string";
        }
        if (raw.matches(".*(Integer|Long|int|long|Double|double|BigDecimal|Number)$")) {
            return "a number";
        }
        if (raw.endsWith("Boolean") || raw.equals("boolean")) {
            return "true or false";
        }
        if (raw.endsWith("Instant")) {
            return "an RFC 3339 timestamp";
        }
        return "a " + raw.substring(raw.lastIndexOf('.') + 1);
    }

    /**
     * @param e a query or path value of the wrong type
     * @param request the request, for the audit line
     * @return 400
     */
    @ExceptionHandler(MethodArgumentTypeMismatchException.class)
    public ResponseEntity<ApiError> typeMismatch(MethodArgumentTypeMismatchException e, HttpServletRequest request) {
        return answer(request, HttpStatus.BAD_REQUEST, HttpHeaders.EMPTY,
                "'" + e.getName() + "' cannot be '" + e.getValue() + "'"
                        + (e.getRequiredType() == null ? "" : ": expected " + e.getRequiredType().getSimpleName()));
    }

    /**
     * Any other request Spring MVC refuses (missing parameter, not acceptable, ...), with
     * the status it chose.
     * @param e the refusal
     * @param request the request, for the audit line
     * @return its status and detail
     * @throws ServletException when it is not one of Spring MVC's refusals (Spring Boot
     * answers it then)
     */
    @ExceptionHandler(ServletException.class)
    public ResponseEntity<ApiError> refused(ServletException e, HttpServletRequest request) throws ServletException {
        if (!(e instanceof ErrorResponse response)) {
            throw e;
        }
        String detail = response.getBody().getDetail();
        return answer(request, response.getStatusCode(), response.getHeaders(),
                detail == null ? e.getMessage() : detail);
    }

    private static ResponseEntity<ApiError> answer(HttpServletRequest request, HttpStatusCode status,
            HttpHeaders headers, String error) {
        RequestAudit.refused(request, status.value(), error);
        return ResponseEntity.status(status).headers(headers).body(new ApiError(error));
    }

    private static String knownFields(UnrecognizedPropertyException e) {
        if (e.getKnownPropertyIds() == null || e.getKnownPropertyIds().isEmpty()) {
            return "";
        }
        return "; known fields: "
                + e.getKnownPropertyIds().stream().map(Object::toString).sorted().collect(Collectors.joining(", "));
    }

}
