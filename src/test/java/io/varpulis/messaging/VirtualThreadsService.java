package io.varpulis.messaging;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A service with one listener, run in a JVM of its own by {@link VirtualThreadsTest}: it
 * sends itself one order, prints the thread its listener ran on, and exits.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class VirtualThreadsService {

    record Order(String id) {
    }

    static class Orders {

        final CompletableFuture<String> thread = new CompletableFuture<>();

        @NatsListener(id = "virtual", subject = "virtual.>")
        void on(Order order) {
            thread.complete(Thread.currentThread().toString());
        }

    }

    @Bean
    Orders orders() {
        return new Orders();
    }

    /**
     * @param args Spring Boot arguments ({@code --varpulis.nats.url=...})
     * @throws Exception when it cannot run
     */
    public static void main(String[] args) throws Exception {
        try (ConfigurableApplicationContext context = SpringApplication.run(VirtualThreadsService.class, args)) {
            context.getBean(NatsTemplate.class).send("virtual.1", new Order("v1")).get();
            System.out.println("LISTENER-THREAD " + context.getBean(Orders.class).thread.get(30, TimeUnit.SECONDS));
        }
        System.exit(0);
    }

}
