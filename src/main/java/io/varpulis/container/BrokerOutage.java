package io.varpulis.container;

import io.varpulis.transport.Delivery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicLong;

/**
 * One consumer's waits for a broker that is away, told once each way: a WARN when its
 * deliveries start waiting, an INFO with how long and how many tries when one gets
 * through again (the fault suite counts these lines).
 */
final class BrokerOutage {

    private static final Logger log = LoggerFactory.getLogger(BrokerOutage.class);

    private final String unit;

    private final String durable;

    private final String backOff;

    private final AtomicLong since = new AtomicLong();

    private final AtomicLong tries = new AtomicLong();

    /**
     * @param unit the pipeline or listener, for the log
     * @param durable its durable consumer
     * @param backOff how the waits grow, for the log
     */
    BrokerOutage(String unit, String durable, String backOff) {
        this.unit = unit;
        this.durable = durable;
        this.backOff = backOff;
    }

    void waiting(Delivery delivery, Throwable cause) {
        tries.incrementAndGet();
        if (since.compareAndSet(0, System.nanoTime())) {
            log.warn(
                    "{} on {}: the broker is unavailable ({}); waiting and trying again ({}), deliveries kept in "
                            + "progress (no delivery of max_deliver is spent); first: {}",
                    unit, durable, cause == null ? "unknown" : cause.getMessage(), backOff, delivery);
        }
    }

    void recovered() {
        long started = since.getAndSet(0);
        if (started != 0) {
            log.info("{} on {}: the broker answers again after {} ms; {} tries waited for it", unit, durable,
                    (System.nanoTime() - started) / 1_000_000, tries.getAndSet(0));
        }
    }

}
