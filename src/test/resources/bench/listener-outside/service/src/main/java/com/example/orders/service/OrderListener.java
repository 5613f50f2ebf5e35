package com.example.orders.service;

import com.example.orders.Order;
import com.example.orders.OrderFile;
import io.varpulis.messaging.NatsListener;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/** The README's listener shape: a record payload, a line written, nothing returned (acked once it returns). */
@Component
@ConditionalOnProperty(name = "orders.batch-size", havingValue = "0", matchIfMissing = true)
public class OrderListener {

    private final OrderFile file;

    public OrderListener(OrderFile file) {
        this.file = file;
    }

    @NatsListener(id = "orders", subject = "orders.>")
    public void record(Order order) {
        file.write(order);
    }
}
