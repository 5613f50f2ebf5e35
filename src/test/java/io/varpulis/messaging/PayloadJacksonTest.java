package io.varpulis.messaging;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The README's documented way to set a service's payload JSON (issue 33): its Jackson 2
 * {@code ObjectMapper} bean (the only one, or the {@code @Primary} one) converts what its
 * listeners read and what its template writes; {@code spring.jackson.*}, which configures
 * Spring Boot 4's Jackson 3 mapper, does not.
 */
@BrokerTest
class PayloadJacksonTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    record Order(String orderId, Instant placedAt) {
    }

    static class OrderListener {

        final List<Order> orders = new CopyOnWriteArrayList<>();

        @NatsListener(id = "orders", subject = "json.orders")
        void onOrder(Order order) {
            orders.add(order);
        }

    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Service {

        @Bean
        OrderListener orderListener() {
            return new OrderListener();
        }

    }

    @SpringBootConfiguration
    static class PayloadJson {

        @Bean
        ObjectMapper payloadObjectMapper() {
            return snakeCase();
        }

    }

    @SpringBootConfiguration
    static class TwoMappers {

        @Bean
        @Primary
        ObjectMapper payloadObjectMapper() {
            return snakeCase();
        }

        @Bean
        ObjectMapper otherObjectMapper() {
            return JsonMapper.builder().findAndAddModules().build();
        }

    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withUserConfiguration(Service.class)
        .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=core");

    @Test
    void theServicesObjectMapperBeanWritesTheTemplatesPayloadsAndReadsTheListeners() {
        runner.withUserConfiguration(PayloadJson.class).run(context -> {
            assertThat(context).hasNotFailed();
            String written = publishAndCapture(context.getBean(Connection.class), context.getBean(NatsTemplate.class));
            assertThat(written).isEqualTo("{\"order_id\":\"o-1\",\"placed_at\":\"2026-11-30T12:00:00Z\"}");
            await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(context.getBean(OrderListener.class).orders)
                    .containsExactly(new Order("o-1", Instant.parse("2026-11-30T12:00:00Z"))));
        });
    }

    @Test
    void ofTwoMappersThePrimaryOneIsUsed() {
        runner.withUserConfiguration(TwoMappers.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(new String(context.getBean(PayloadConverter.class).write(new Order("o-2", null)),
                    StandardCharsets.UTF_8))
                .isEqualTo("{\"order_id\":\"o-2\",\"placed_at\":null}");
        });
    }

    @Test
    void springJacksonPropertiesDoNotReachPayloads() {
        runner.withPropertyValues("spring.jackson.property-naming-strategy=SNAKE_CASE").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(new String(context.getBean(PayloadConverter.class).write(new Order("o-3", null)),
                    StandardCharsets.UTF_8))
                .isEqualTo("{\"orderId\":\"o-3\",\"placedAt\":null}");
        });
    }

    private static String publishAndCapture(Connection connection, NatsTemplate template) throws Exception {
        BlockingQueue<Message> seen = new LinkedBlockingQueue<>();
        Dispatcher dispatcher = connection.createDispatcher(seen::add);
        dispatcher.subscribe("json.orders");
        connection.flush(Duration.ofSeconds(2));
        template.send("json.orders", new Order("o-1", Instant.parse("2026-11-30T12:00:00Z"))).get();
        Message message = seen.poll(5, TimeUnit.SECONDS);
        connection.closeDispatcher(dispatcher);
        assertThat(message).isNotNull();
        return new String(message.getData(), StandardCharsets.UTF_8);
    }

    private static ObjectMapper snakeCase() {
        return JsonMapper.builder()
            .findAndAddModules()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .build();
    }

}
