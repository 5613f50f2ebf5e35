package io.varpulis.autoconfigure;

import io.varpulis.demo.SshProcessorTypes;
import io.varpulis.pipeline.ProcessorType;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * Registers the main job's processor types ({@code sshd-parse}, {@code brute-force}, {@code alert-file}) on cluster
 * nodes, as any service registers its own: {@link ProcessorType} beans. Off with
 * {@code varpulis.demo.processors.enabled=false}.
 */
@AutoConfiguration
@ConditionalOnProperty(prefix = "varpulis.cluster", name = "enabled", havingValue = "true")
@ConditionalOnProperty(prefix = "varpulis.demo.processors", name = "enabled", havingValue = "true",
        matchIfMissing = true)
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
     * @return {@code alert-file}
     */
    @Bean
    public ProcessorType alertFileProcessorType() {
        return SshProcessorTypes.alertFile();
    }
}
