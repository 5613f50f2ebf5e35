package io.varpulis.messaging;

import io.varpulis.jetstream.ConsumerSettings;
import io.varpulis.jetstream.NakBackOff;
import io.varpulis.messaging.NatsListenerAnnotationBeanPostProcessor.AnnotatedListener;
import org.springframework.boot.convert.DurationStyle;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Each {@link NatsListener}'s settings: the annotation merged with
 * {@code varpulis.nats.listeners.<id>.*} (which wins) over
 * {@code varpulis.nats.jetstream.consumer.*}'s defaults, checked (errors name the method
 * and the property to set), its method bound ({@link ListenerMethods}) and its error
 * handler found.
 */
public class ListenerEndpoints {

    private final ConsumerSettings defaults;

    private final Map<String, ListenerSettings> listeners;

    private final ErrorHandlers errorHandlers;

    private final ListenerMethods methods;

    private final Duration idleEventInterval;

    /**
     * @param defaults the consumer defaults
     * @param listeners the overrides from {@code application.yml}, by listener id
     * @param errorHandlers the service's error handlers
     * @param methods binds the methods
     * @param idleEventInterval after how long without a delivery a listener says it is
     * idle, or {@code null} for never
     * ({@code varpulis.nats.listener-idle-event-interval})
     */
    public ListenerEndpoints(ConsumerSettings defaults, Map<String, ListenerSettings> listeners,
            ErrorHandlers errorHandlers, ListenerMethods methods, Duration idleEventInterval) {
        this.defaults = defaults;
        this.listeners = listeners;
        this.errorHandlers = errorHandlers;
        this.methods = methods;
        this.idleEventInterval = idleEventInterval;
    }

    /**
     * The service's {@link NatsListenerErrorHandler}s.
     *
     * @param byName the bean of a name, for {@link NatsListener#errorHandler()} (throws
     * when there is none of that name and type)
     * @param global the one bean of the type, or {@code null}
     */
    public record ErrorHandlers(Function<String, NatsListenerErrorHandler> byName, NatsListenerErrorHandler global) {

        /** None. */
        public static final ErrorHandlers NONE = new ErrorHandlers(name -> {
            throw new IllegalStateException("no NatsListenerErrorHandler bean named " + name);
        }, null);

    }

    /**
     * @return the consumer defaults
     */
    ConsumerSettings defaults() {
        return defaults;
    }

    /**
     * @param found an annotated method
     * @return its settings
     * @throws IllegalStateException naming the method and the setting, when the listener
     * is misconfigured
     */
    ListenerEndpoint of(AnnotatedListener found) {
        NatsListener annotation = found.annotation();
        String id = annotation.id();
        String where = "@NatsListener(id = \"" + id + "\") on " + found.method().getDeclaringClass().getSimpleName()
                + "." + found.method().getName();
        if (!id.matches("[A-Za-z0-9_-]+")) {
            throw new IllegalStateException(where + ": the id names the durable consumer and the DLQ subject, so it "
                    + "may only hold letters, digits, '-' and '_'");
        }
        ListenerSettings overrides = listeners.getOrDefault(id, ListenerSettings.NONE);
        String subject = overrides.subject() != null ? overrides.subject() : annotation.subject();
        if (subject.isBlank()) {
            throw new IllegalStateException(where + " has no subject: set subject = \"...\" or "
                    + "varpulis.nats.listeners." + id + ".subject");
        }
        int concurrency = overrides.concurrency() != null ? overrides.concurrency()
                : Math.max(annotation.concurrency(), 1);
        if (concurrency < 1) {
            throw new IllegalStateException(
                    "varpulis.nats.listeners." + id + ".concurrency must be 1 or more, got " + concurrency);
        }
        String sendTo = overrides.sendTo() != null ? overrides.sendTo() : annotation.sendTo();
        ListenerMethod method;
        try {
            method = methods.bind(found.bean(), found.method(), annotation.batch());
        }
        catch (IllegalStateException | IllegalArgumentException e) {
            throw new IllegalStateException(where + ": " + e.getMessage(), e);
        }
        // A value returned without sendTo answers the request it came in (ReplyAddress).
        List<Class<? extends Throwable>> notRetryable = Arrays.asList(annotation.notRetryable());
        return new ListenerEndpoint(id, subject, overrides.stream() != null ? overrides.stream() : annotation.stream(),
                concurrency, overrides.maxDeliver() != null ? overrides.maxDeliver() : annotation.maxDeliver(),
                overrides.maxAckPending() != null ? overrides.maxAckPending() : annotation.maxAckPending(), sendTo,
                notRetryable, backOff(where, annotation.backOff(), overrides.backOff()),
                overrides.applyTimeout() != null ? overrides.applyTimeout()
                        : duration(where, "applyTimeout", annotation.applyTimeout(), defaults.applyTimeout()),
                errorHandler(where, annotation.errorHandler()),
                overrides.batchSize() != null ? overrides.batchSize()
                        : annotation.batchSize() > 0 ? annotation.batchSize() : defaults.batchSize(),
                overrides.autoStartup() != null ? overrides.autoStartup()
                        : !"false".equalsIgnoreCase(annotation.autoStartup().trim()),
                annotation.orderedBySubject(),
                overrides.idleEventInterval() != null ? overrides.idleEventInterval() : idleEventInterval, method);
    }

    /**
     * The consumers' back-off, changed by the annotation's values, then by the
     * properties'.
     */
    private NakBackOff backOff(String where, NatsBackOff annotated, ListenerSettings.BackOff overrides) {
        NakBackOff base = defaults.nakBackOff();
        try {
            NakBackOff fromAnnotation = base.with(duration(where, "backOff.delay", annotated.delay(), null),
                    annotated.multiplier() > 0 ? annotated.multiplier() : null,
                    duration(where, "backOff.maxDelay", annotated.maxDelay(), null),
                    duration(where, "backOff.jitter", annotated.jitter(), null));
            return overrides.applyTo(fromAnnotation);
        }
        catch (IllegalArgumentException e) {
            throw new IllegalStateException(
                    where + ": its back-off is invalid (" + e.getMessage() + "); fix "
                            + "@NatsListener(backOff = @NatsBackOff(...)) or varpulis.nats.listeners.<id>.backoff.*",
                    e);
        }
    }

    private static Duration duration(String where, String attribute, String value, Duration otherwise) {
        if (value.isBlank()) {
            return otherwise;
        }
        try {
            return DurationStyle.detectAndParse(value.trim());
        }
        catch (IllegalArgumentException e) {
            throw new IllegalStateException(where + ": " + attribute + " = \"" + value + "\" is not a duration; "
                    + "write it as application.yml does (500ms, 30s, 5m, PT30S)", e);
        }
    }

    private NatsListenerErrorHandler errorHandler(String where, String beanName) {
        if (beanName.isBlank()) {
            return errorHandlers.global();
        }
        try {
            return errorHandlers.byName().apply(beanName);
        }
        catch (RuntimeException e) {
            throw new IllegalStateException(where + ": errorHandler = \"" + beanName + "\" names no "
                    + "NatsListenerErrorHandler bean; declare one with that name, or leave it empty for the "
                    + "service's one handler", e);
        }
    }

}
