package com.example.orders.service;

import com.example.orders.Order;
import com.example.orders.OrderFile;
import io.varpulis.messaging.NatsListener;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.stereotype.Component;

import java.util.List;

/**
 * The same work as a batch listener (issue 42): up to {@code varpulis.nats.listeners.orders.batch-size} orders of one
 * pull at a time, all acked once it returns. Used instead of {@link OrderListener} when {@code orders.batch-size} is
 * above 0 (the harness's {@code --batch=N} sets both).
 */
@Component
@ConditionalOnExpression("${orders.batch-size:0} > 0")
public class OrderBatchListener {

    private final OrderFile file;

    public OrderBatchListener(OrderFile file) {
        this.file = file;
    }

    @NatsListener(id = "orders", subject = "orders.>", batch = true)
    public void record(List<Order> orders) {
        for (Order order : orders) {
            file.write(order);
        }
    }
}
