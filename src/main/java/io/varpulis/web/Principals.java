package io.varpulis.web;

import io.varpulis.dlq.Caller;
import io.varpulis.support.AuditLog;
import io.varpulis.support.NodeRole;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;

import java.util.List;
import java.util.Objects;

/**
 * The caller of an HTTP request as the audit log names it: the authenticated principal,
 * its roles, its address.
 */
final class Principals {

    private Principals() {
    }

    /**
     * @param request the request being served
     * @return its caller, from Spring Security's context
     */
    static Caller caller(HttpServletRequest request) {
        Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
        boolean known = authentication != null && authentication.isAuthenticated();
        return new Caller(known ? authentication.getName() : null, roles(authentication), request.getRemoteAddr());
    }

    /**
     * @param authentication the principal, or {@code null}
     * @param request the request, for the address
     * @return {@link AuditLog#describe} of the caller; Spring Security's anonymous token
     * is no principal
     */
    static String describe(Authentication authentication, HttpServletRequest request) {
        boolean known = authentication != null && !(authentication instanceof AnonymousAuthenticationToken);
        return AuditLog.describe(known ? authentication.getName() : null, known ? roles(authentication) : List.of(),
                request.getRemoteAddr());
    }

    /**
     * @param authentication the principal, or {@code null}
     * @return the names of its roles ({@code ROLE_} authorities without the prefix), as
     * granted (before the hierarchy adds the lesser ones)
     */
    static List<String> roles(Authentication authentication) {
        if (authentication == null) {
            return List.of();
        }
        return authentication.getAuthorities()
            .stream()
            .map(GrantedAuthority::getAuthority)
            .filter(Objects::nonNull)
            .filter(a -> a.startsWith(NodeRole.AUTHORITY_PREFIX))
            .map(a -> a.substring(NodeRole.AUTHORITY_PREFIX.length()))
            .sorted()
            .toList();
    }

}
