package io.varpulis.web;

import io.varpulis.support.NodeRole;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.security.access.hierarchicalroles.RoleHierarchy;
import org.springframework.security.access.hierarchicalroles.RoleHierarchyImpl;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.access.ExceptionTranslationFilter;
import org.springframework.security.web.access.intercept.AuthorizationFilter;
import org.springframework.util.unit.DataSize;

/**
 * The security filter chain of a cluster node (SPEC section 10), built on Spring
 * Security's own HTTP basic and OAuth2 resource server (JWT) support: nothing is
 * authenticated by hand. Who may call what is {@link ApiAccessRules}; refusals are
 * {@link ApiSecurityErrors}; bodies are bounded by {@link RequestSizeLimitFilter}; every
 * refused write is audited ({@link RequestAudit}).
 * <p>
 * Stateless: no session and no cookie. There is no CSRF token, and not because a browser
 * holds no credential: it caches HTTP basic credentials and sends them with a forged
 * cross-site request too. What stops a forged write is that none can be sent without a
 * CORS preflight, which this node never answers for another origin: every {@code POST}
 * takes a JSON body ({@code Content-Type: application/json}, not a type a form or a
 * simple request may send; {@code text/plain}, a form or multipart body is 415, and a
 * body-less one 400), and {@code DELETE} is preflighted by itself.
 */
public final class ClusterHttpSecurity {

    private ClusterHttpSecurity() {
    }

    /**
     * @return {@code ADMIN > OPERATOR > VIEWER}: each role grants what the ones below it
     * grant
     */
    public static RoleHierarchy roleHierarchy() {
        return RoleHierarchyImpl.withDefaultRolePrefix()
            .role(NodeRole.ADMIN.name())
            .implies(NodeRole.OPERATOR.name())
            .role(NodeRole.OPERATOR.name())
            .implies(NodeRole.VIEWER.name())
            .build();
    }

    /**
     * @param http Spring Security's builder
     * @param maxRequestSize the largest request body
     * ({@code varpulis.security.max-request-size}), larger is a 413
     * @param openPrometheus whether Prometheus scrapes without credentials
     * ({@code varpulis.security.open-prometheus})
     * @param actuatorBasePath {@code management.endpoints.web.base-path}
     * @param separateManagementPort whether Actuator is served on its own port
     * ({@code management.server.port})
     * @param jwt whether a {@code JwtDecoder} is configured (an identity provider)
     * @return the chain
     * @throws InvalidConfigurationPropertyValueException when Prometheus would be open on
     * the application port
     * @throws Exception as {@link HttpSecurity#build()}
     */
    public static SecurityFilterChain build(HttpSecurity http, DataSize maxRequestSize, boolean openPrometheus,
            String actuatorBasePath, boolean separateManagementPort, boolean jwt) throws Exception {
        if (openPrometheus && !separateManagementPort) {
            throw new InvalidConfigurationPropertyValueException("varpulis.security.open-prometheus", true,
                    "Prometheus may scrape without credentials only on a separate management port: set "
                            + "management.server.port (the chart uses 8081), or leave open-prometheus off and give "
                            + "Prometheus a VIEWER's credentials");
        }
        ApiAccessRules rules = ApiAccessRules.of(actuatorBasePath, openPrometheus);
        ApiSecurityErrors errors = new ApiSecurityErrors(rules, jwt);
        http.authorizeHttpRequests(requests -> {
            for (ApiAccessRules.Rule rule : rules.rules()) {
                if (rule.role() == null) {
                    requests.requestMatchers(rule.matcher()).permitAll();
                }
                else {
                    requests.requestMatchers(rule.matcher()).hasRole(rule.role().name());
                }
            }
            requests.anyRequest().authenticated();
        });
        http.httpBasic(basic -> basic.realmName("varpulis").authenticationEntryPoint(errors));
        if (jwt) {
            http.oauth2ResourceServer(resourceServer -> resourceServer.jwt(Customizer.withDefaults())
                .authenticationEntryPoint(errors)
                .accessDeniedHandler(errors));
        }
        http.exceptionHandling(exceptions -> exceptions.authenticationEntryPoint(errors).accessDeniedHandler(errors));
        http.sessionManagement(sessions -> sessions.sessionCreationPolicy(SessionCreationPolicy.STATELESS));
        http.csrf(csrf -> csrf.disable());
        http.addFilterBefore(new RequestAudit(), ExceptionTranslationFilter.class);
        http.addFilterAfter(new RequestSizeLimitFilter(maxRequestSize), AuthorizationFilter.class);
        return http.build();
    }

}
