package io.varpulis.autoconfigure.node;

import io.varpulis.bruteforce.BruteForceProperties;
import io.varpulis.bruteforce.SshProcessorTypes;
import io.varpulis.pipeline.ProcessorType;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Registers the main job's processor types ({@code sshd-parse}, {@code brute-force},
 * {@code alert-file}) on cluster nodes, as any service registers its own:
 * {@link ProcessorType} beans. Opt-in with {@code varpulis.demo.processors.enabled=true}
 * (review finding 6: {@code alert-file} writes on the worker's host); {@code alert-file}
 * writes only in {@code varpulis.demo.processors.alert-dir}.
 */
@AutoConfiguration
@ConditionalOnProperty(prefix = "varpulis.cluster", name = "enabled", havingValue = "true")
@ConditionalOnProperty(prefix = "varpulis.demo.processors", name = "enabled", havingValue = "true")
@EnableConfigurationProperties(BruteForceProperties.class)
public class SshDetectionAutoConfiguration {

    /**
     * @return {@code sshd-parse}
     */
    @Bean
    public ProcessorType sshdParseProcessorType() {
        return SshProcessorTypes.sshdParse();
    }

    /**
     * @return {@code brute-force}
     */
    @Bean
    public ProcessorType bruteForceProcessorType() {
        return SshProcessorTypes.bruteForce();
    }

    /**
     * @param properties {@code varpulis.demo.processors.*}: the alert directory
     * @return {@code alert-file}, confined to {@code varpulis.demo.processors.alert-dir}
     */
    @Bean
    public ProcessorType alertFileProcessorType(BruteForceProperties properties) {
        return SshProcessorTypes.alertFile(properties.getAlertDir());
    }

}
