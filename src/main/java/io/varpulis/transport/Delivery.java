package io.varpulis.transport;

import io.nats.client.Message;
import io.nats.client.impl.Headers;
import io.nats.client.support.NatsJetStreamConstants;
import io.varpulis.nats.Substrate;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * One message handed to a consumer, with a one-shot settlement: exactly one of
 * {@link #ack()}, {@link #nak(Duration)}, {@link #parked(ParkReason)} (an ack once the
 * DLQ stored the death envelope) or {@link #leave(String)} (given up unsettled, for the
 * server to redeliver) takes effect; a second call throws. How it was settled is part of
 * the delivery ({@link #settlement()}, {@link #parkReason()}), so meters, traces and logs
 * read it from here rather than from the DLQ's message ids or envelopes (SPEC section
 * 18).
 * <p>
 * On JetStream an unacknowledged delivery comes back after ack_wait, up to max_deliver
 * times. On core there is no redelivery: ack is a no-op and nak logs that the event is
 * lost.
 */
public abstract class Delivery {

    /** The header JetStream de-duplicates on. */
    public static final String MSG_ID_HEADER = NatsJetStreamConstants.MSG_ID_HDR;

    private final Message message;

    // How it was settled ("ack", "nak"), or null; one field set by compare-and-exchange
    // rather than an
    // AtomicReference, which was one more object per delivery (issue 14, item 3).
    private static final VarHandle SETTLED_BY;

    static {
        try {
            SETTLED_BY = MethodHandles.lookup().findVarHandle(Delivery.class, "settledBy", String.class);
        }
        catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // written through SETTLED_BY
    private volatile String settledBy;

    /** Why it was parked, once {@link #parked} settled it. */
    private volatile ParkReason parkReason;

    /**
     * When it was received, or last told the server it was in progress
     * ({@link System#nanoTime()}).
     */
    private final long receivedNanos = System.nanoTime();

    private volatile long progressNanos = receivedNanos;

    /**
     * @param message the client's message
     */
    protected Delivery(Message message) {
        this.message = message;
    }

    /**
     * @return the subject the message was published on
     */
    public String subject() {
        return message.getSubject();
    }

    /**
     * @return the payload bytes (never null)
     */
    public byte[] data() {
        byte[] data = message.getData();
        return data == null ? new byte[0] : data;
    }

    /**
     * @return the message headers, or {@code null} when it had none
     */
    public Headers headers() {
        return message.getHeaders();
    }

    /**
     * @return the publisher's {@code Nats-Msg-Id}, or {@code null}
     */
    public String publisherMessageId() {
        Headers headers = message.getHeaders();
        return headers == null ? null : headers.getFirst(MSG_ID_HEADER);
    }

    /**
     * @return on core, the message's reply-to: a core request's inbox (jnats'
     * {@code request}, {@code nats request}), but also the PubAck inbox of a message a
     * JetStream publisher sent, which a core subscriber sees too; {@code null} on
     * JetStream, where the delivery's reply-to is its ack subject, and when the message
     * has none
     */
    public String replyTo() {
        return substrate() == Substrate.CORE ? message.getReplyTo() : null;
    }

    /**
     * A stable identity: the publisher's {@code Nats-Msg-Id} when set, else
     * {@code {stream}:{sequence}} on JetStream.
     * @return the id, the same on every redelivery (on core without a header: unique per
     * process only)
     */
    public abstract String messageId();

    /**
     * @return the trace id of this delivery's processing when it is observed with a
     * tracer (SPEC section 14: a park names it in the death envelope's {@code trace_id}),
     * else {@code null}
     */
    public String traceId() {
        return null;
    }

    /**
     * Runs code on behalf of this delivery, on whichever thread: an observed delivery
     * (SPEC section 14) makes its process observation current meanwhile, so what the code
     * publishes (the outputs of an apply, confirmed after its state writes on another
     * thread) continues the delivery's trace.
     * @param work the code
     * @param <T> its result's type
     * @return its result
     */
    public <T> T inContext(Supplier<T> work) {
        return work.get();
    }

    /**
     * @return the delivery attempt, 1 for the first (always 1 on core)
     */
    public abstract long attempt();

    /**
     * @return the consumer's max_deliver as the server has it: the attempt after which
     * the server never delivers the message again (1 on core; below 1 means unlimited)
     */
    public abstract long maxDeliver();

    /**
     * @return the consumer's ack_wait as the server has it: how long the server waits for
     * an ack (or an in-progress acknowledgement) before it delivers the message again
     * ({@link Duration#ZERO} on core)
     */
    public abstract Duration ackWait();

    /**
     * @return {@code true} when a failure now means the message would never come back, so
     * it must be parked
     */
    public boolean isLastAttempt() {
        return maxDeliver() >= 1 && attempt() >= maxDeliver();
    }

    /**
     * @return when the stream stored the message, or empty on core
     */
    public abstract Optional<Instant> storedAt();

    /**
     * @param clock the clock to measure with
     * @return how long ago the stream stored the message, or empty on core
     */
    public Optional<Duration> age(Clock clock) {
        return storedAt().map(t -> Duration.between(t, clock.instant()));
    }

    /**
     * @return the stream that holds the message, or {@code null} on core
     */
    public abstract String stream();

    /**
     * @return the message's stream sequence, 0 on core
     */
    public abstract long streamSequence();

    /**
     * @return the substrate it was delivered on
     */
    public abstract Substrate substrate();

    /**
     * Acknowledges: the message is done and is not delivered again (no-op on core).
     * @throws IllegalStateException when the delivery was already acked or nak'ed
     */
    public final void ack() {
        settle("acked");
        doAck();
    }

    /**
     * Negative acknowledgement: redeliver after the delay (JetStream); on core the event
     * is lost and a WARN says so.
     * @param delay how long the server waits before redelivering
     * @throws IllegalStateException when the delivery was already acked or nak'ed
     */
    public final void nak(Duration delay) {
        settle("nak");
        doNak(delay);
    }

    /**
     * Acknowledges a delivery whose death envelope the DLQ stored (the dead-letter
     * parker's PubAck came): the message is done, and is not delivered again. ADR-007:
     * the original is acked only after the DLQ's PubAck.
     * @param reason why it was parked
     * @throws IllegalStateException when the delivery was already settled
     */
    public final void parked(ParkReason reason) {
        settle("parked");
        parkReason = reason;
        doParked(reason);
    }

    /**
     * Gives the delivery up without settling it on the server: nothing is sent, and
     * JetStream delivers it again after ack_wait (to wherever its consumer runs next).
     * What a stopped or fenced owner does with what it can no longer finish; recorded so
     * that its observation ends.
     * @param why why it is given up, for the log and the trace
     * @throws IllegalStateException when the delivery was already settled
     */
    public final void leave(String why) {
        settle("left");
        doLeave(why);
    }

    /**
     * Tells the server the delivery is still being worked on, which restarts its ack_wait
     * (JetStream; no-op on core). Sent for every delivery a container holds (queued,
     * applied, or waiting for the broker) once it has waited a third of ack_wait, so that
     * nothing a live process holds is redelivered and no delivery of its max_deliver
     * budget is spent on slowness or on the broker's absence (SPEC section 9). Ignored
     * once settled; a connection that cannot send it now (closed) is not an error: the
     * server then redelivers after ack_wait.
     */
    public void inProgress() {
        if (!isSettled()) {
            progressNanos = System.nanoTime();
            try {
                doInProgress();
            }
            catch (IllegalStateException notSent) {
                // Closed connection or full reconnect buffer: ack_wait will bring the
                // message back instead.
            }
        }
    }

    /**
     * @return when it was received, or last told the server it was in progress
     * ({@link System#nanoTime()} units)
     */
    public long progressNanos() {
        return progressNanos;
    }

    /**
     * @return when this delivery was received ({@link System#nanoTime()})
     */
    public long receivedNanos() {
        return receivedNanos;
    }

    /**
     * @return {@code true} once it was acked, nak'ed, parked or left
     */
    public boolean isSettled() {
        return settledBy != null;
    }

    /**
     * @return how it was settled: {@code ack}, {@code nak}, {@code parked}, {@code left},
     * or {@code null} while it is not
     */
    public String settlement() {
        return settledBy;
    }

    /**
     * @return why it was parked, or {@code null} when it was not (yet)
     */
    public ParkReason parkReason() {
        return parkReason;
    }

    /**
     * @return the client's message, for code that needs what this type does not expose
     */
    protected Message message() {
        return message;
    }

    /** Sends the ack. */
    protected abstract void doAck();

    /**
     * Sends the ack of a parked delivery.
     * @param reason why it was parked
     */
    protected void doParked(ParkReason reason) {
        doAck();
    }

    /**
     * Gives it up: nothing to send.
     * @param why why
     */
    protected void doLeave(String why) {
    }

    /** Sends a work-in-progress acknowledgement (resets ack_wait); nothing on core. */
    protected void doInProgress() {
    }

    /**
     * Sends the nak.
     * @param delay redelivery delay
     */
    protected abstract void doNak(Duration delay);

    private void settle(String how) {
        String earlier = (String) SETTLED_BY.compareAndExchange(this, null, how);
        if (earlier != null) {
            throw new IllegalStateException("delivery " + messageId() + " on " + subject() + " was already " + earlier
                    + "; " + how + " is refused (settlement is one-shot)");
        }
    }

    @Override
    public String toString() {
        return substrate() + " delivery " + messageId() + " on " + subject() + " (attempt " + attempt() + "/"
                + maxDeliver() + ")";
    }

}
