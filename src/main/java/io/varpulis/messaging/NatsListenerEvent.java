package io.varpulis.messaging;

import io.varpulis.container.StopReason;
import org.springframework.context.ApplicationEvent;

import java.time.Duration;

/**
 * What happens to a {@link NatsListener}'s container, published as an
 * {@link ApplicationEvent} (an {@code @EventListener} of one of the nested types, or of
 * this one for all), in the manner of Spring Kafka's container events. The source is the
 * {@link NatsListenerContainer}.
 */
public abstract class NatsListenerEvent extends ApplicationEvent {

    private final String listenerId;

    NatsListenerEvent(NatsListenerContainer container) {
        super(container);
        this.listenerId = container.id();
    }

    /**
     * @return the listener's id
     */
    public String listenerId() {
        return listenerId;
    }

    /**
     * @return the container
     */
    public NatsListenerContainer container() {
        return (NatsListenerContainer) getSource();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + listenerId + "]";
    }

    /** The container is starting: its durable consumer is being declared and bound. */
    public static final class Starting extends NatsListenerEvent {

        Starting(NatsListenerContainer container) {
            super(container);
        }

    }

    /** The container consumes. */
    public static final class Started extends NatsListenerEvent {

        Started(NatsListenerContainer container) {
            super(container);
        }

    }

    /** The container could not start (its consumer could not be declared or bound). */
    public static final class FailedToStart extends NatsListenerEvent {

        private final transient Throwable cause;

        FailedToStart(NatsListenerContainer container, Throwable cause) {
            super(container);
            this.cause = cause;
        }

        /**
         * @return why
         */
        public Throwable cause() {
            return cause;
        }

    }

    /** No delivery came for the listener's idle event interval. */
    public static final class Idle extends NatsListenerEvent {

        private final Duration idleFor;

        Idle(NatsListenerContainer container, Duration idleFor) {
            super(container);
            this.idleFor = idleFor;
        }

        /**
         * @return how long no delivery came
         */
        public Duration idleFor() {
            return idleFor;
        }

    }

    /** A delivery came after an {@link Idle} event. */
    public static final class NoLongerIdle extends NatsListenerEvent {

        private final Duration idleFor;

        NoLongerIdle(NatsListenerContainer container, Duration idleFor) {
            super(container);
            this.idleFor = idleFor;
        }

        /**
         * @return how long it had been idle
         */
        public Duration idleFor() {
            return idleFor;
        }

    }

    /**
     * The container stopped pulling and holds no delivery; its consumer's pending grows.
     */
    public static final class Paused extends NatsListenerEvent {

        Paused(NatsListenerContainer container) {
            super(container);
        }

    }

    /** The container consumes again after a pause. */
    public static final class Resumed extends NatsListenerEvent {

        Resumed(NatsListenerContainer container) {
            super(container);
        }

    }

    /** The container stopped. */
    public static final class Stopped extends NatsListenerEvent {

        private final StopReason reason;

        private final transient Throwable cause;

        Stopped(NatsListenerContainer container, StopReason reason, Throwable cause) {
            super(container);
            this.reason = reason;
            this.cause = cause;
        }

        /**
         * @return why: {@link StopReason#NORMAL} (stopped, or the service closing),
         * {@link StopReason#ERROR} (a {@link VirtualMachineError})
         */
        public StopReason reason() {
            return reason;
        }

        /**
         * @return the error, or {@code null}
         */
        public Throwable cause() {
            return cause;
        }

    }

}
