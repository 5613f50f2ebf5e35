package com.example.stellar;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

import java.time.Duration;

/** Sends a telecommand to its spacecraft; a target out of contact fails every time, a retired one is refused. */
@Component
public class Uplink {

    private final Duration latency;

    public Uplink(@Value("${stellar.uplink.latency:0ms}") Duration latency) {
        this.latency = latency;
    }

    public void send(Telecommand tc) throws InterruptedException {
        if (tc.target().startsWith("retired-")) {
            throw new IllegalArgumentException(tc.target() + " is retired");
        }
        if (tc.target().startsWith("lost-")) {
            throw new IllegalStateException("no contact with " + tc.target());
        }
        Thread.sleep(latency.toMillis());
    }
}
