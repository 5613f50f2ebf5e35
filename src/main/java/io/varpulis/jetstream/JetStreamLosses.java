package io.varpulis.jetstream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Where a node says what the servers lost ({@link JetStreamLoss}, SPEC section 21: never
 * silent): each loss is logged once at ERROR, passed to the listeners (the meters), and
 * kept among the last {@value #KEPT} for the {@code jetstream} health's {@code losses}.
 * Thread-safe.
 */
public final class JetStreamLosses {

    /** Losses kept for the health details. */
    static final int KEPT = 50;

    private static final Logger log = LoggerFactory.getLogger(JetStreamLosses.class);

    private final Deque<JetStreamLoss> recent = new ArrayDeque<>();

    private final List<Consumer<JetStreamLoss>> listeners = new CopyOnWriteArrayList<>();

    private final AtomicLong count = new AtomicLong();

    /**
     * Says a loss: ERROR, listeners, the health.
     * @param loss what was lost
     */
    public void record(JetStreamLoss loss) {
        log.error("JetStream lost data: {}", loss.detail());
        count.incrementAndGet();
        synchronized (recent) {
            recent.addLast(loss);
            while (recent.size() > KEPT) {
                recent.removeFirst();
            }
        }
        for (Consumer<JetStreamLoss> listener : listeners) {
            try {
                listener.accept(loss);
            }
            catch (RuntimeException e) {
                log.warn("a loss listener failed on {}: {}", loss.kind().tag(), e.toString());
            }
        }
    }

    /**
     * @param listener told of every loss recorded from now on (the meters), on the
     * recording thread
     */
    public void addListener(Consumer<JetStreamLoss> listener) {
        listeners.add(listener);
    }

    /**
     * @return the last losses recorded, oldest first
     */
    public List<JetStreamLoss> recent() {
        synchronized (recent) {
            return List.copyOf(recent);
        }
    }

    /**
     * @return losses recorded since this node started
     */
    public long count() {
        return count.get();
    }

}
