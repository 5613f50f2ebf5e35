package io.varpulis.autoconfigure;

import io.varpulis.support.PropertyChecks;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

import java.time.Duration;

/**
 * How the {@code jetstream} health component refreshes,
 * {@code varpulis.nats.jetstream.health-refresh-interval}.
 */
@ConfigurationProperties("varpulis.nats.jetstream")
public class JetStreamHealthProperties implements Validator {

    /**
     * How often the {@code jetstream} health component asks the server about streams and
     * consumers, in the background: a health check answers from the last answer at once,
     * whatever NATS is doing.
     */
    private Duration healthRefreshInterval = Duration.ofSeconds(5);

    public Duration getHealthRefreshInterval() {
        return healthRefreshInterval;
    }

    public void setHealthRefreshInterval(Duration healthRefreshInterval) {
        this.healthRefreshInterval = healthRefreshInterval;
    }

    /**
     * @param type a class being bound
     * @return whether it is this class, which validates itself while Spring Boot binds it
     */
    @Override
    public boolean supports(Class<?> type) {
        return JetStreamHealthProperties.class.isAssignableFrom(type);
    }

    /**
     * Refuses a refresh interval under 100 ms, naming the property.
     * @param target the bound properties
     * @param errors where violations go
     */
    @Override
    public void validate(Object target, Errors errors) {
        PropertyChecks.atLeast(errors, "healthRefreshInterval",
                ((JetStreamHealthProperties) target).getHealthRefreshInterval(), Duration.ofMillis(100));
    }

}
