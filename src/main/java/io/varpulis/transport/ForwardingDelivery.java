package io.varpulis.transport;

import io.nats.client.impl.Headers;
import io.varpulis.nats.Substrate;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A {@link Delivery} that forwards to another one, for code that must see a delivery
 * settled without changing who settles it (an observation that ends on the ack, nak, park
 * or leave). Settlement stays one-shot on both: settling this one settles the delivery it
 * wraps the same way, so the transport that made that delivery sees it settled too.
 */
public abstract class ForwardingDelivery extends Delivery {

    private final Delivery delegate;

    /**
     * @param delegate the delivery the transport made
     */
    protected ForwardingDelivery(Delivery delegate) {
        super(delegate.message());
        this.delegate = delegate;
    }

    /**
     * @return the delivery this one forwards to
     */
    public Delivery delegate() {
        return delegate;
    }

    @Override
    public Headers headers() {
        return delegate.headers();
    }

    @Override
    public String messageId() {
        return delegate.messageId();
    }

    @Override
    public String traceId() {
        return delegate.traceId();
    }

    @Override
    public <T> T inContext(Supplier<T> work) {
        return delegate.inContext(work);
    }

    @Override
    public long attempt() {
        return delegate.attempt();
    }

    @Override
    public long maxDeliver() {
        return delegate.maxDeliver();
    }

    @Override
    public Duration ackWait() {
        return delegate.ackWait();
    }

    @Override
    public Optional<Instant> storedAt() {
        return delegate.storedAt();
    }

    @Override
    public String stream() {
        return delegate.stream();
    }

    @Override
    public long streamSequence() {
        return delegate.streamSequence();
    }

    @Override
    public Substrate substrate() {
        return delegate.substrate();
    }

    @Override
    protected void doAck() {
        delegate.ack();
    }

    @Override
    protected void doNak(Duration delay) {
        delegate.nak(delay);
    }

    @Override
    protected void doParked(ParkReason reason) {
        delegate.parked(reason);
    }

    @Override
    protected void doLeave(String why) {
        delegate.leave(why);
    }

    @Override
    protected void doInProgress() {
        delegate.inProgress();
    }

    @Override
    public long progressNanos() {
        return delegate.progressNanos();
    }

    @Override
    public String toString() {
        return delegate.toString();
    }

}
