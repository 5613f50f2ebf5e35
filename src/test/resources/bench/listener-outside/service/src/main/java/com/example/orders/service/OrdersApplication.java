package com.example.orders.service;

import com.example.orders.OrderFile;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

import java.io.IOException;
import java.nio.file.Path;

/** Writes each stored order to a file, one line an order: {@link OrderListener}. */
@SpringBootApplication
public class OrdersApplication {

    public static void main(String[] args) {
        SpringApplication.run(OrdersApplication.class, args);
    }

    @Bean(destroyMethod = "close")
    OrderFile orderFile(@Value("${orders.file}") Path file, @Value("${orders.expected}") int expected,
            @Value("${orders.result}") Path result) throws IOException {
        return new OrderFile(file, expected, result);
    }
}
