package io.varpulis.web;

import io.varpulis.support.NodeRole;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.access.AccessDeniedHandler;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;

/**
 * The 401 and 403 answers of a node: {@code {"error": "..."}} like every other refusal,
 * with the {@code WWW-Authenticate} challenges the node accepts ({@code Basic}, and
 * {@code Bearer} with an identity provider). A refused write is audited
 * ({@link RequestAudit}); a refused read is not (scanners would flood the log).
 */
public class ApiSecurityErrors implements AuthenticationEntryPoint, AccessDeniedHandler {

    private final ApiAccessRules rules;

    private final boolean bearer;

    /**
     * @param rules says which role a refused request needed
     * @param bearer whether bearer tokens (JWT) are accepted, for the challenge
     */
    public ApiSecurityErrors(ApiAccessRules rules, boolean bearer) {
        this.rules = rules;
        this.bearer = bearer;
    }

    @Override
    public void commence(HttpServletRequest request, HttpServletResponse response, AuthenticationException e)
            throws IOException {
        response.addHeader(HttpHeaders.WWW_AUTHENTICATE, "Basic realm=\"varpulis\"");
        if (bearer) {
            response.addHeader(HttpHeaders.WWW_AUTHENTICATE,
                    e instanceof OAuth2AuthenticationException ? "Bearer error=\"invalid_token\"" : "Bearer");
        }
        String reason = e instanceof BadCredentialsException ? "bad credentials"
                : e instanceof OAuth2AuthenticationException oauth
                        ? "invalid bearer token (" + oauth.getError().getDescription() + ")" : "credentials required";
        RequestAudit.refused(request, HttpStatus.UNAUTHORIZED.value(), reason);
        write(response, HttpStatus.UNAUTHORIZED,
                reason + ": send HTTP basic credentials" + (bearer ? " or a bearer token" : ""));
    }

    @Override
    public void handle(HttpServletRequest request, HttpServletResponse response, AccessDeniedException e)
            throws IOException {
        Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
        String who = Principals.describe(authentication, request);
        String needs = "needs role "
                + rules.requiredRole(request).map(NodeRole::name).orElse("an authenticated principal");
        RequestAudit.refused(request, HttpStatus.FORBIDDEN.value(), needs);
        write(response, HttpStatus.FORBIDDEN,
                who + ": " + request.getMethod() + " " + request.getRequestURI() + " " + needs);
    }

    /**
     * Writes {@code {"error": message}}.
     * @param response the response, not committed yet
     * @param status its status
     * @param message the error
     * @throws IOException when the client went away
     */
    static void write(HttpServletResponse response, HttpStatus status, String message) throws IOException {
        response.setStatus(status.value());
        response.setContentType(MediaType.APPLICATION_JSON_VALUE);
        JsonMapper.shared().writeValue(response.getOutputStream(), new ApiError(message));
    }

}
