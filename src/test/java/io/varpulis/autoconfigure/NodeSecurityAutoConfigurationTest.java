package io.varpulis.autoconfigure;

import io.varpulis.autoconfigure.node.NodeSecurityAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration;
import org.springframework.boot.security.oauth2.server.resource.autoconfigure.OAuth2ResourceServerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the node's filter chain coexists with a host application's security (issue 13): it
 * exists only on a node ({@code varpulis.cluster.enabled=true}), replaces Spring Boot's
 * default chain there, and backs off entirely when the application declares a chain of
 * its own. A library user ({@code varpulis.cluster.enabled} off) keeps Spring Boot's
 * default.
 */
class NodeSecurityAutoConfigurationTest {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(NodeSecurityAutoConfiguration.class, SecurityAutoConfiguration.class,
                ServletWebSecurityAutoConfiguration.class, UserDetailsServiceAutoConfiguration.class,
                OAuth2ResourceServerAutoConfiguration.class));

    @Test
    void onANodeTheNodesChainReplacesSpringBootsDefault() {
        runner.withPropertyValues("varpulis.cluster.enabled=true").run(context -> {
            assertThat(context).hasNotFailed()
                .hasSingleBean(SecurityFilterChain.class)
                .hasBean("varpulisSecurityFilterChain");
        });
    }

    @Test
    void asALibraryTheHostKeepsSpringBootsDefaultChain() {
        runner.run(context -> {
            assertThat(context).hasNotFailed()
                .hasSingleBean(SecurityFilterChain.class)
                .doesNotHaveBean("varpulisSecurityFilterChain");
        });
    }

    @Test
    void anApplicationsOwnChainWinsAndTheNodesBacksOff() {
        runner.withPropertyValues("varpulis.cluster.enabled=true")
            .withUserConfiguration(HostSecurity.class)
            .run(context -> {
                assertThat(context).hasNotFailed()
                    .hasSingleBean(SecurityFilterChain.class)
                    .hasBean("hostChain")
                    .doesNotHaveBean("varpulisSecurityFilterChain");
            });
    }

    @Test
    void aNodeWithoutSpringSecurityOnItsClasspathRefusesToStartInsteadOfServingItsApiOpen() {
        new WebApplicationContextRunner().withConfiguration(AutoConfigurations.of(NodeSecurityAutoConfiguration.class))
            .withClassLoader(new FilteredClassLoader("org.springframework.security"))
            .withPropertyValues("varpulis.cluster.enabled=true")
            .run(context -> {
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure()).rootCause()
                    .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                    .hasMessageContaining("varpulis.cluster.enabled")
                    .hasMessageContaining("spring-boot-starter-security");
            });
    }

    @Test
    void openPrometheusOnTheApplicationPortFailsStartupNamingTheProperty() {
        runner.withPropertyValues("varpulis.cluster.enabled=true", "varpulis.security.open-prometheus=true")
            .run(context -> {
                assertThat(context).hasFailed();
                Throwable root = context.getStartupFailure();
                while (!(root instanceof InvalidConfigurationPropertyValueException) && root.getCause() != null) {
                    root = root.getCause();
                }
                assertThat(root).isInstanceOf(InvalidConfigurationPropertyValueException.class)
                    .hasMessageContaining("varpulis.security.open-prometheus")
                    .hasMessageContaining("management.server.port");
            });
    }

    @Configuration(proxyBeanMethods = false)
    static class HostSecurity {

        @Bean
        SecurityFilterChain hostChain(HttpSecurity http) throws Exception {
            return http.authorizeHttpRequests(requests -> requests.anyRequest().authenticated()).build();
        }

    }

}
