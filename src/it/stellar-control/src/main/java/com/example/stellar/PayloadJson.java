package com.example.stellar;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL;

/**
 * The JSON of every payload the listeners read and the template writes: snake_case names, no null fields, ISO-8601
 * dates. The substrate converts payloads with this Jackson 2 mapper (the one ObjectMapper bean, or the primary one);
 * spring.jackson.* configures Spring Boot's Jackson 3 mapper, which does not touch payloads.
 */
@Configuration(proxyBeanMethods = false)
public class PayloadJson {

    @Bean
    public ObjectMapper payloadObjectMapper() {
        return JsonMapper.builder()
                .findAndAddModules()
                .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .defaultPropertyInclusion(JsonInclude.Value.construct(NON_NULL, NON_NULL))
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .build();
    }
}
