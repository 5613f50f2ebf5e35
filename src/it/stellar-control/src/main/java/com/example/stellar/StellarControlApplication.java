package com.example.stellar;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** Stellar Control's telecommand service: submit commands in, one event per command out. */
@SpringBootApplication
public class StellarControlApplication {

    public static void main(String[] args) {
        SpringApplication.run(StellarControlApplication.class, args);
    }
}
