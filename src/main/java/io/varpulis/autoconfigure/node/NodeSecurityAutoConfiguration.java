package io.varpulis.autoconfigure.node;

import io.varpulis.web.ApiErrorAdvice;
import io.varpulis.web.ApiErrorAttributes;
import io.varpulis.web.ClusterHttpSecurity;
import io.varpulis.web.OperatorApiDocument;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointProperties;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.security.autoconfigure.web.servlet.ConditionalOnDefaultServletWebSecurity;
import org.springframework.boot.webmvc.autoconfigure.error.ErrorMvcAutoConfiguration;
import org.springframework.boot.webmvc.error.ErrorAttributes;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.security.access.hierarchicalroles.RoleHierarchy;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.web.SecurityFilterChain;

/**
 * HTTP security of a cluster node ({@code varpulis.cluster.enabled=true}, servlet stack;
 * SPEC section 10): the {@link ClusterHttpSecurity} filter chain (roles
 * {@code VIEWER < OPERATOR < ADMIN}, probes open, everything else authenticated, bodies
 * bounded), and {@code {"error": ...}} for every refusal.
 * <p>
 * Credentials are Spring Boot's own: {@code spring.security.user.*} (the jar's
 * application.yml names the user {@code varpulis} with role {@code ADMIN}, so without a
 * password Boot generates one and logs it once) or, with
 * {@code spring.security.oauth2.resourceserver.jwt.*}, bearer tokens whose roles come
 * from the claim
 * {@code spring.security.oauth2.resourceserver.jwt.authorities-claim-name}.
 * <p>
 * Coexistence with a host application: the chain is defined only on a node, and backs off
 * entirely when the application declares a {@link SecurityFilterChain} of its own (the
 * same condition as Spring Boot's default chain); that application then secures
 * {@code /api/v1/cluster/**} itself, and may reuse {@link io.varpulis.web.ApiAccessRules}
 * for it. The jar used as a library ({@code varpulis.cluster.enabled} off) defines no
 * chain at all.
 */
@AutoConfiguration(
        afterName = "org.springframework.boot.security.oauth2.server.resource.autoconfigure"
                + ".OAuth2ResourceServerAutoConfiguration",
        before = ErrorMvcAutoConfiguration.class,
        beforeName = {
                "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
                "org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration",
                "org.springframework.boot.security.oauth2.server.resource.autoconfigure.web"
                        + ".OAuth2ResourceServerWebSecurityAutoConfiguration" })
@ConditionalOnProperty(prefix = "varpulis.cluster", name = "enabled", havingValue = "true")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@EnableConfigurationProperties(NodeSecurityProperties.class)
public class NodeSecurityAutoConfiguration {

    /**
     * @return {@code {"error": ...}} for unknown paths and methods, unreadable and
     * oversized bodies
     */
    @Bean
    @ConditionalOnMissingBean
    public ApiErrorAdvice apiErrorAdvice() {
        return new ApiErrorAdvice();
    }

    /**
     * @return {@code {"error": ...}} from Spring Boot's {@code /error} too
     */
    @Bean
    @ConditionalOnMissingBean(ErrorAttributes.class)
    public ApiErrorAttributes apiErrorAttributes() {
        return new ApiErrorAttributes();
    }

    /**
     * Without Spring Security a node would serve its operator API to anyone: it refuses
     * to start instead (the starters are optional dependencies of the library, packaged
     * in the node jar).
     * @return never
     * @throws InvalidConfigurationPropertyValueException naming
     * {@code varpulis.cluster.enabled} and the fix
     */
    @Bean
    @ConditionalOnMissingClass("org.springframework.security.web.SecurityFilterChain")
    public Object varpulisNodeNeedsSpringSecurity() {
        throw new InvalidConfigurationPropertyValueException("varpulis.cluster.enabled", "true",
                "A cluster node serves its operator API only behind Spring Security, which is not on the "
                        + "classpath: add org.springframework.boot:spring-boot-starter-security (and "
                        + "spring-boot-starter-security-oauth2-resource-server for JWT), or leave "
                        + "varpulis.cluster.enabled off to use only the substrate.");
    }

    /**
     * The operator API's OpenAPI document, served by springdoc at {@code /v3/api-docs}
     * behind the VIEWER role ({@link io.varpulis.web.ApiAccessRules}); springdoc is an
     * optional dependency the node jar packages (issue 24).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(OpenApiCustomizer.class)
    static class OperatorApiDocumentConfiguration {

        @Bean
        @ConditionalOnMissingBean
        OperatorApiDocument operatorApiDocument() {
            String version = OperatorApiDocument.class.getPackage().getImplementationVersion();
            return new OperatorApiDocument(version == null ? "development" : version);
        }

    }

    /** The filter chain, unless the application declares its own. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(SecurityFilterChain.class)
    @ConditionalOnDefaultServletWebSecurity
    static class NodeFilterChainConfiguration {

        @Bean
        @ConditionalOnMissingBean
        RoleHierarchy roleHierarchy() {
            return ClusterHttpSecurity.roleHierarchy();
        }

        @Bean
        SecurityFilterChain varpulisSecurityFilterChain(HttpSecurity http, NodeSecurityProperties properties,
                ObjectProvider<WebEndpointProperties> endpoints, ObjectProvider<JwtDecoder> jwtDecoder,
                Environment environment) throws Exception {
            WebEndpointProperties web = endpoints.getIfAvailable(WebEndpointProperties::new);
            boolean separate = ManagementPortType.get(environment) == ManagementPortType.DIFFERENT;
            return ClusterHttpSecurity.build(http, properties.getMaxRequestSize(), properties.isOpenPrometheus(),
                    web.getBasePath(), separate, jwtDecoder.getIfAvailable() != null);
        }

    }

}
