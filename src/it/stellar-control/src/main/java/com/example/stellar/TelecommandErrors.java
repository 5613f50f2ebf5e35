package com.example.stellar;

import io.varpulis.messaging.ErrorAction;
import io.varpulis.messaging.NatsListenerErrorHandler;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** What becomes of a telecommand a listener failed on: one for a retired spacecraft is parked at once. */
@Configuration(proxyBeanMethods = false)
public class TelecommandErrors {

    @Bean
    public NatsListenerErrorHandler telecommandErrorHandler() {
        return failure -> failure.exception() instanceof IllegalArgumentException
                ? ErrorAction.park()      // no retry reaches a retired spacecraft: parked now (unprocessable)
                : ErrorAction.retry();    // the back-off, then parked on the last delivery (max_deliver)
    }
}
