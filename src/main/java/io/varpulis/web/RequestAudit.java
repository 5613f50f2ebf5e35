package io.varpulis.web;

import io.varpulis.support.AuditLog;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;

/**
 * Every refused write is audited, in one format (SPEC section 10): {@code audit: {who}:
 * refused: {METHOD} {path}: {status} {reason}}. Where a refusal is answered (the
 * controllers, {@link ApiErrorAdvice}, {@link ApiSecurityErrors},
 * {@link RequestSizeLimitFilter}) it is audited with its reason through {@link #refused};
 * as a filter in the security chain (before Spring Security's exception translation, so
 * the principal is known and 401 and 403 are seen), this audits every other write
 * answered 400 or more (a 5xx, a refusal without a reason) once, with its status. Reads
 * are not audited: scanners would flood the log.
 */
public final class RequestAudit extends OncePerRequestFilter {

    /**
     * Audits a refused write; a read is not audited.
     * @param request the request
     * @param status the status it is answered with
     * @param reason why, as the caller is told
     */
    static void refused(HttpServletRequest request, int status, String reason) {
        if (isWrite(request)) {
            AuditLog.refused(Principals.describe(SecurityContextHolder.getContext().getAuthentication(), request),
                    request.getMethod() + " " + request.getRequestURI() + ": " + status
                            + (reason == null || reason.isEmpty() ? "" : " " + reason));
        }
    }

    /**
     * @param request a request
     * @return {@code true} unless it is a {@code GET} or {@code HEAD}
     */
    static boolean isWrite(HttpServletRequest request) {
        return !HttpMethod.GET.matches(request.getMethod()) && !HttpMethod.HEAD.matches(request.getMethod());
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        AuditLog.forgetLines();
        boolean failed = true;
        try {
            chain.doFilter(request, response);
            failed = false;
        }
        finally {
            // An exception leaving the chain is answered 500 by the container.
            int status = failed ? HttpStatus.INTERNAL_SERVER_ERROR.value() : response.getStatus();
            if (status >= 400 && !AuditLog.wroteLine()) {
                refused(request, status, failed ? "the node failed" : null);
            }
            AuditLog.forgetLines();
        }
    }

}
