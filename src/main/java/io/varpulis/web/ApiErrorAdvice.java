package io.varpulis.web;

import jakarta.servlet.ServletException;
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
import tools.jackson.databind.exc.UnrecognizedPropertyException;

import java.util.stream.Collectors;

/**
 * The node's answer to requests Spring MVC refuses before or around a handler (issue 15): every one is
 * {@code {"error": "..."}} with the status Spring chose, never Spring Boot's default error JSON. 404 for an unknown
 * path, 405 for an unknown method (with the allowed ones), 415 for a body that is not JSON, 400 for a body that is
 * not the expected JSON (an unknown field is named), 413 for a body over {@code varpulis.security.max-request-size}.
 * Registered on cluster nodes only, so a host application's own controllers keep their error handling.
 */
@RestControllerAdvice
public class ApiErrorAdvice {

    /**
     * @param e an unknown path
     * @return 404
     */
    @ExceptionHandler(NoResourceFoundException.class)
    public ResponseEntity<ApiError> notFound(NoResourceFoundException e) {
        return ResponseEntity.status(HttpStatus.NOT_FOUND).body(new ApiError("no such path: /" + e.getResourcePath()));
    }

    /**
     * @param e a method the path does not take
     * @return 405 with an {@code Allow} header
     */
    @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
    public ResponseEntity<ApiError> methodNotAllowed(HttpRequestMethodNotSupportedException e) {
        String allowed = e.getSupportedHttpMethods() == null ? "" : e.getSupportedHttpMethods().stream()
                .map(Object::toString).sorted().collect(Collectors.joining(", "));
        return ResponseEntity.status(HttpStatus.METHOD_NOT_ALLOWED).headers(e.getHeaders())
                .body(new ApiError(e.getMethod() + " is not allowed here" + (allowed.isEmpty() ? ""
                        : "; allowed: " + allowed)));
    }

    /**
     * @param e a body that is not JSON
     * @return 415
     */
    @ExceptionHandler(HttpMediaTypeNotSupportedException.class)
    public ResponseEntity<ApiError> unsupportedMediaType(HttpMediaTypeNotSupportedException e) {
        return ResponseEntity.status(HttpStatus.UNSUPPORTED_MEDIA_TYPE)
                .body(new ApiError("send JSON with Content-Type: application/json"));
    }

    /**
     * @param e a body that is too large, or not the expected JSON
     * @return 413 or 400
     */
    @ExceptionHandler(HttpMessageNotReadableException.class)
    public ResponseEntity<ApiError> unreadable(HttpMessageNotReadableException e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof RequestSizeLimitFilter.RequestTooLargeException tooLarge) {
                return ResponseEntity.status(HttpStatus.CONTENT_TOO_LARGE).body(new ApiError(tooLarge.getMessage()));
            }
            if (cause instanceof UnrecognizedPropertyException unknown) {
                return ResponseEntity.badRequest().body(new ApiError("unknown field '" + unknown.getPropertyName()
                        + "'" + knownFields(unknown)));
            }
        }
        Throwable cause = e.getMostSpecificCause();
        String detail = cause == e || cause.getMessage() == null ? "the body is missing" : cause.getMessage();
        return ResponseEntity.badRequest().body(new ApiError("the request body is not the expected JSON: "
                + detail.lines().findFirst().orElse(detail)));
    }

    /**
     * @param e a query or path value of the wrong type
     * @return 400
     */
    @ExceptionHandler(MethodArgumentTypeMismatchException.class)
    public ResponseEntity<ApiError> typeMismatch(MethodArgumentTypeMismatchException e) {
        return ResponseEntity.badRequest().body(new ApiError("'" + e.getName() + "' cannot be '" + e.getValue()
                + "'" + (e.getRequiredType() == null ? "" : ": expected " + e.getRequiredType().getSimpleName())));
    }

    /**
     * Any other request Spring MVC refuses (missing parameter, not acceptable, ...), with the status it chose.
     *
     * @param e the refusal
     * @return its status and detail
     * @throws ServletException when it is not one of Spring MVC's refusals (Spring Boot answers it then)
     */
    @ExceptionHandler(ServletException.class)
    public ResponseEntity<ApiError> refused(ServletException e) throws ServletException {
        if (!(e instanceof ErrorResponse response)) {
            throw e;
        }
        HttpStatusCode status = response.getStatusCode();
        String detail = response.getBody().getDetail();
        return ResponseEntity.status(status).headers(response.getHeaders())
                .body(new ApiError(detail == null ? e.getMessage() : detail));
    }

    private static String knownFields(UnrecognizedPropertyException e) {
        if (e.getKnownPropertyIds() == null || e.getKnownPropertyIds().isEmpty()) {
            return "";
        }
        return "; known fields: " + e.getKnownPropertyIds().stream().map(Object::toString).sorted()
                .collect(Collectors.joining(", "));
    }
}
