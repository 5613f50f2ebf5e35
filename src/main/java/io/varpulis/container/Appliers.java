package io.varpulis.container;

import io.varpulis.transport.Delivery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The threads that apply one {@link DeliveryContainer}'s deliveries: {@code concurrency}
 * of them, taking from one queue, or each from its own when one subject's deliveries are
 * applied in order (a subject always goes to the same queue). A thread stuck past the
 * apply timeout is replaced where the container may (a listener's), at most
 * {@code concurrency} times. A thread ends when the container closes and its queue is
 * empty, or once replaced; a {@link VirtualMachineError} that reaches one is handed to
 * the container, which stops.
 */
final class Appliers {

    private static final Logger log = LoggerFactory.getLogger(Appliers.class);

    /**
     * How long an idle applying thread waits for a delivery before it checks whether the
     * container closed, ms.
     */
    private static final long IDLE_POLL_MILLIS = 200;

    /**
     * How long a batch waits for more of its pull's messages after the queue ran dry, ms.
     */
    static final long BATCH_LINGER_MILLIS = 5;

    private final ContainerParts parts;

    private final ContainerSettings settings;

    private final DeliveryProcessor processor;

    private final Consumer<Throwable> fatal;

    // Lock-free hand-over (issue 34): a LinkedBlockingQueue's put and take contended for
    // its take lock on every delivery.
    private final List<BlockingQueue<Delivery>> queues = new ArrayList<>();

    private final List<Applier> appliers = new CopyOnWriteArrayList<>();

    private final AtomicInteger replaced = new AtomicInteger();

    /**
     * @param parts the container's parts
     * @param settings its concurrency, ordering and whether stuck threads are replaced
     * @param processor processes what each thread takes
     * @param fatal told of a {@link VirtualMachineError}
     */
    Appliers(ContainerParts parts, ContainerSettings settings, DeliveryProcessor processor, Consumer<Throwable> fatal) {
        this.parts = parts;
        this.settings = settings;
        this.processor = processor;
        this.fatal = fatal;
        for (int i = 0; i < (settings.orderedBySubject() ? settings.concurrency() : 1); i++) {
            queues.add(new LinkedTransferQueue<>());
        }
    }

    /** Starts the threads. */
    void start() {
        for (int i = 0; i < settings.concurrency(); i++) {
            start(queues.get(i % queues.size()));
        }
    }

    /**
     * @param delivery held, to be applied by the thread of its queue
     */
    void offer(Delivery delivery) {
        (queues.size() == 1 ? queues.get(0) : queues.get(Math.floorMod(delivery.subject().hashCode(), queues.size())))
            .add(delivery);
    }

    /**
     * @return what is queued and not taken yet, removed from the queues
     */
    List<Delivery> takeQueued() {
        List<Delivery> queued = new ArrayList<>();
        queues.forEach(queue -> queue.drainTo(queued));
        return queued;
    }

    /**
     * Replaces the thread stuck in an apply past its timeout, where the container may.
     * @param stuck the thread
     */
    void replace(Thread stuck) {
        if (!settings.replaceHungAppliers()) {
            return;
        }
        for (Applier applier : appliers) {
            if (applier.thread == stuck && !applier.abandoned) {
                if (replaced.incrementAndGet() <= settings.concurrency()) {
                    applier.abandoned = true;
                    start(applier.queue);
                    log.warn("{}: {} is replaced by a new applying thread ({} stuck now, at most {} replaced)",
                            parts.unit(), stuck.getName(), replaced.get(), settings.concurrency());
                }
                else {
                    replaced.decrementAndGet();
                    log.error(
                            "{}: {} is stuck and no more threads are started for it ({} stuck already); its queue "
                                    + "waits for it: restart the service",
                            parts.unit(), stuck.getName(), settings.concurrency());
                }
            }
        }
    }

    private void start(BlockingQueue<Delivery> queue) {
        Applier applier = new Applier(queue);
        Thread thread = parts.runtime().threads().factory().newThread(applier);
        thread.setName("varpulis-apply-" + parts.consumer().durable()
                + (settings.concurrency() > 1 || !appliers.isEmpty() ? "-" + appliers.size() : ""));
        applier.thread = thread;
        appliers.add(applier);
        thread.start();
    }

    /**
     * Processes deliveries; a throw that is not a {@link VirtualMachineError} (a meter
     * filter of the service's, a bug of ours) is counted and each delivery not settled
     * yet is left for redelivery: the thread goes on.
     */
    private void guarded(List<Delivery> deliveries, Runnable process) {
        try {
            process.run();
        }
        catch (Throwable e) {
            DeliveryProcessor.rethrowFatal(e);
            for (Delivery delivery : deliveries) {
                if (!delivery.isSettled()) {
                    parts.errors().report(ErrorStage.SETTLER, delivery, e);
                    try {
                        delivery.leave("its processing failed: " + e);
                    }
                    catch (RuntimeException settled) {
                        // Settled meanwhile: nothing to leave.
                    }
                    parts.held().release(delivery);
                }
            }
        }
    }

    /**
     * One applying thread's loop; it ends when the container closes, or once replaced.
     */
    private final class Applier implements Runnable {

        private final BlockingQueue<Delivery> queue;

        private volatile Thread thread;

        private volatile boolean abandoned;

        Applier(BlockingQueue<Delivery> queue) {
            this.queue = queue;
        }

        @Override
        public void run() {
            try {
                loop();
            }
            catch (Throwable e) {
                // The processor turns every other throw into an outcome: here is a
                // VirtualMachineError, or a bug of ours; the container stops rather than
                // wedge.
                fatal.accept(e);
            }
        }

        /**
         * A batch: the first delivery, what is queued behind it, and what arrives within
         * {@value Appliers#BATCH_LINGER_MILLIS} ms more (the client hands a pull's
         * messages over one at a time), up to the batch size.
         */
        private List<Delivery> batch(Delivery first, int batchSize) {
            List<Delivery> batch = new ArrayList<>(Math.min(batchSize, 512));
            batch.add(first);
            long lingerUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BATCH_LINGER_MILLIS);
            while (batch.size() < batchSize) {
                if (queue.drainTo(batch, batchSize - batch.size()) > 0) {
                    continue;
                }
                long left = lingerUntil - System.nanoTime();
                Delivery next = null;
                try {
                    next = left > 0 ? queue.poll(left, TimeUnit.NANOSECONDS) : null;
                }
                catch (InterruptedException e) {
                    // As the loop's poll: the container's close is read from its state.
                }
                if (next == null) {
                    break;
                }
                batch.add(next);
            }
            return batch;
        }

        private void loop() {
            int batchSize = processor.batchSize();
            while (!abandoned) {
                Delivery delivery;
                try {
                    delivery = queue.poll(IDLE_POLL_MILLIS, TimeUnit.MILLISECONDS);
                }
                catch (InterruptedException e) {
                    delivery = null;
                }
                if (delivery != null && batchSize > 1) {
                    List<Delivery> batch = batch(delivery, batchSize);
                    guarded(batch, () -> processor.process(batch));
                }
                else if (delivery != null) {
                    Delivery one = delivery;
                    guarded(List.of(one), () -> processor.process(one));
                }
                else if (parts.state().closed() && queue.isEmpty()) {
                    return;
                }
            }
            replaced.decrementAndGet();
            appliers.remove(this);
            log.info("{}: {} returned after its apply timeout and ends (a new thread took its place)", parts.unit(),
                    Thread.currentThread().getName());
        }

    }

}
