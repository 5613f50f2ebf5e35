package com.example.orders;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * An order as its producer stores it on {@code orders.created}:
 * {@code {"orderId","customer","sku","quantity","amount","placedAt"}}, {@code placedAt} in ISO-8601 (UTC).
 */
public record Order(String orderId, String customer, String sku, int quantity, BigDecimal amount, Instant placedAt) {
}
