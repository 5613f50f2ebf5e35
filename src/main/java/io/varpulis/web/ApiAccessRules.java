package io.varpulis.web;

import io.varpulis.support.NodeRole;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.http.HttpMethod;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;
import org.springframework.security.web.util.matcher.RequestMatcher;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Who may call what on a node (SPEC section 10), as an ordered list of rules, the first
 * match deciding:
 * <ul>
 * <li>{@code {base}/health/liveness} and {@code {base}/health/readiness}: anyone (the
 * probes);</li>
 * <li>{@code {base}/prometheus}: anyone, only with
 * {@code varpulis.security.open-prometheus=true} on a separate management port;</li>
 * <li>{@code POST /api/v1/cluster/pipeline-groups}, {@code POST
 * .../pipeline-groups/{id}/inject}, {@code POST /api/v1/cluster/dlq/replay}, {@code POST
 * {base}/dlq} (replay): {@link NodeRole#OPERATOR};</li>
 * <li>{@code GET} on {@code /api/v1/cluster/**}, on its OpenAPI document
 * ({@code /v3/api-docs}), on the Actuator endpoints an operator watches (health, info,
 * metrics, prometheus, dlq, loggers) and on the links page: {@link NodeRole#VIEWER};</li>
 * <li>anything else there ({@code DELETE} of groups, purges, Actuator writes, and reading
 * any other endpoint an operator exposes: heapdump, threaddump, env, configprops, beans,
 * mappings, ..., which show the node's memory, threads, configuration or wiring):
 * {@link NodeRole#ADMIN};</li>
 * <li>any other path: any authenticated principal (it answers 404).</li>
 * </ul>
 * {@code {base}} is {@code management.endpoints.web.base-path} ({@code /actuator}).
 */
public final class ApiAccessRules {

    /** The root of the operator API. */
    public static final String API = "/api/v1/cluster";

    /**
     * The operator API's OpenAPI document ({@code springdoc.api-docs.path}); YAML at
     * {@code /v3/api-docs.yaml}.
     */
    public static final String API_DOCS = "/v3/api-docs";

    /**
     * The Actuator endpoints a viewer may read; every other one an operator exposes needs
     * an admin.
     */
    private static final String[] VIEWER_ENDPOINTS = { "health", "info", "metrics", "prometheus", "dlq", "loggers" };

    private final List<Rule> rules;

    private ApiAccessRules(List<Rule> rules) {
        this.rules = List.copyOf(rules);
    }

    /**
     * @param actuatorBasePath {@code management.endpoints.web.base-path}
     * @param openPrometheus whether Prometheus may scrape without credentials (on the
     * management port)
     * @return the rules, in order
     */
    public static ApiAccessRules of(String actuatorBasePath, boolean openPrometheus) {
        PathPatternRequestMatcher.Builder paths = PathPatternRequestMatcher.withDefaults();
        List<Rule> rules = new ArrayList<>();
        rules.add(new Rule(paths.matcher(HttpMethod.GET, actuatorBasePath + "/health/liveness"), null));
        rules.add(new Rule(paths.matcher(HttpMethod.GET, actuatorBasePath + "/health/readiness"), null));
        if (openPrometheus) {
            rules.add(new Rule(EndpointRequest.to("prometheus").withHttpMethod(HttpMethod.GET), null));
        }
        for (String write : List.of(API + "/pipeline-groups", API + "/pipeline-groups/*/inject", API + "/dlq/replay")) {
            rules.add(new Rule(paths.matcher(HttpMethod.POST, write), NodeRole.OPERATOR));
        }
        rules.add(new Rule(EndpointRequest.to("dlq").withHttpMethod(HttpMethod.POST), NodeRole.OPERATOR));
        rules.add(new Rule(paths.matcher(HttpMethod.GET, API + "/**"), NodeRole.VIEWER));
        rules.add(new Rule(paths.matcher(HttpMethod.GET, API_DOCS + "/**"), NodeRole.VIEWER));
        rules.add(new Rule(paths.matcher(HttpMethod.GET, API_DOCS + ".yaml"), NodeRole.VIEWER));
        rules.add(new Rule(EndpointRequest.to(VIEWER_ENDPOINTS).withHttpMethod(HttpMethod.GET), NodeRole.VIEWER));
        rules.add(new Rule(EndpointRequest.toLinks(), NodeRole.VIEWER));
        rules.add(new Rule(paths.matcher(API + "/**"), NodeRole.ADMIN));
        rules.add(new Rule(EndpointRequest.toAnyEndpoint(), NodeRole.ADMIN));
        return new ApiAccessRules(rules);
    }

    /**
     * @return the rules, first match first
     */
    public List<Rule> rules() {
        return rules;
    }

    /**
     * @param request a request
     * @return the role the first matching rule asks for; empty when anyone may, or any
     * authenticated principal
     */
    public Optional<NodeRole> requiredRole(HttpServletRequest request) {
        return rules.stream().filter(rule -> rule.matcher().matches(request)).findFirst().map(Rule::role);
    }

    /**
     * One rule.
     *
     * @param matcher the requests it covers
     * @param role the least role they need, or {@code null} for anyone, credentials or
     * not
     */
    public record Rule(RequestMatcher matcher, NodeRole role) {
    }

}
