package io.varpulis.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.GlobalObservationConvention;
import io.micrometer.observation.ObservationFilter;
import io.micrometer.observation.ObservationPredicate;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import io.varpulis.observation.MicrometerTraces;
import io.varpulis.observation.NatsMeterObservationHandler;
import io.varpulis.observation.NatsProcessObservationConvention;
import io.varpulis.observation.NatsSendObservationConvention;
import io.varpulis.observation.NatsReceiverTracingObservationHandler;
import io.varpulis.observation.NatsSenderTracingObservationHandler;
import io.varpulis.observation.ObservedDeliveries;
import io.varpulis.observation.ObservedTransportPostProcessor;
import io.varpulis.observation.Traces;
import io.varpulis.observation.UntracedObservations;
import io.varpulis.transport.DeliveryDecorator;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;

import java.util.Set;

/**
 * Observes the substrate (SPEC section 14) when
 * {@code varpulis.nats.observation-enabled=true}, in the manner of
 * {@code spring.kafka.template.observation-enabled} and
 * {@code spring.kafka.listener.observation-enabled}: every {@code ClusterTransport} bean
 * is wrapped so that each publish is a Micrometer Observation, and every delivery a
 * container processes is one ({@link ObservedDeliveries}), which Spring Boot's tracing
 * bridge (Brave or OpenTelemetry, when present) makes spans propagated in NATS headers
 * and its meter handler makes timers; commands and registrations ({@code RequestReply})
 * carry the trace context too. Off by default, as in Spring Kafka: see the README's
 * Observability section for its measured cost.
 * <p>
 * What each observation costs is kept near Micrometer's own (issue 32): the substrate's
 * timers by a meter handler of their own ({@link NatsMeterObservationHandler}: timers
 * looked up once, no long-task timer per message unless
 * {@code varpulis.nats.observation-long-task-timers=true}); a publish's span started
 * before its observation ({@link NatsSenderTracingObservationHandler}), so that a message
 * whose trace is not sampled (by its incoming headers, or by the tracer for a root) is
 * only timed, without an Observation or a span ({@link UntracedObservations}). Both
 * handlers are ordered first, so that Spring Boot's first-matching handler groups leave
 * every other observation to Boot's own handlers.
 */
@AutoConfiguration
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBooleanProperty("varpulis.nats.observation-enabled")
public class NatsObservationAutoConfiguration {

    /**
     * Static, so that the transport beans are wrapped however early they are created.
     * @param registry the observation registry, looked up lazily
     * @param sendConvention the application's {@link NatsSendObservationConvention} bean,
     * if any
     * @param processConvention the application's {@link NatsProcessObservationConvention}
     * bean, if any
     * @param traces trace ids, span links and sampling decisions
     * ({@link MicrometerTraces} when Micrometer Tracing is there)
     * @param untraced what times a message whose trace is not sampled
     * @return the post-processor
     */
    @Bean
    public static ObservedTransportPostProcessor varpulisObservedTransportPostProcessor(
            ObjectProvider<ObservationRegistry> registry, ObjectProvider<NatsSendObservationConvention> sendConvention,
            ObjectProvider<NatsProcessObservationConvention> processConvention, ObjectProvider<Traces> traces,
            ObjectProvider<UntracedObservations> untraced) {
        return new ObservedTransportPostProcessor(registry, sendConvention, processConvention, traces, untraced);
    }

    /**
     * @param registry the observation registry
     * @param convention the application's {@link NatsProcessObservationConvention} bean,
     * if any
     * @param traces trace ids for death envelopes, and whether the tracer decides
     * sampling first
     * @param untraced what times a delivery whose trace is not sampled
     * @return the process observation of every delivery a container processes
     */
    @Bean
    @ConditionalOnMissingBean
    public DeliveryDecorator varpulisObservedDeliveries(ObjectProvider<ObservationRegistry> registry,
            ObjectProvider<NatsProcessObservationConvention> convention, ObjectProvider<Traces> traces,
            ObjectProvider<UntracedObservations> untraced) {
        return new ObservedDeliveries(registry.getIfAvailable(() -> ObservationRegistry.NOOP),
                convention.getIfAvailable(), traces.getIfAvailable(() -> Traces.NONE),
                untraced.getIfAvailable(() -> UntracedObservations.NONE));
    }

    /**
     * The timers of what no span records, decided as an Observation would decide them: by
     * the application's convention, predicate, filter and global convention beans (what
     * Spring Boot registers on the registry).
     * @param timers the substrate's meter handler, if there is a meter registry
     * @param predicates the application's observation predicates
     * ({@code management.observations.enable.*})
     * @param filters the application's observation filters
     * ({@code management.observations.key-values.*})
     * @param conventions the application's global observation conventions
     * @return what times an untraced publish or delivery
     */
    @Bean
    @ConditionalOnMissingBean
    public UntracedObservations varpulisUntracedObservations(ObjectProvider<NatsMeterObservationHandler> timers,
            ObjectProvider<ObservationPredicate> predicates, ObjectProvider<ObservationFilter> filters,
            ObjectProvider<GlobalObservationConvention<?>> conventions) {
        return new UntracedObservations(timers.getIfAvailable(), predicates.orderedStream().toList(),
                filters.orderedStream().toList(), conventions.orderedStream().toList());
    }

    /** With Micrometer's meters: the substrate's timers at their cost. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static class MetersConfiguration {

        /**
         * Boot's list of the meters its observation handler leaves out
         * ({@code long-task-timer}).
         */
        static final String IGNORED_METERS = "management.metrics.observations.ignored-meters";

        /**
         * @param registry Spring Boot's meter registry
         * @param environment {@code varpulis.nats.observation-long-task-timers}: a
         * long-task timer per message ({@code varpulis.nats.send.active},
         * {@code varpulis.nats.process.active}), off by default; Boot's
         * {@code management.metrics.observations.ignored-meters=long-task-timer} turns
         * them off too, as it does for Boot's own observations
         * @return the substrate's meter handler, first of Boot's meter handlers
         */
        @Bean
        @Order(Ordered.HIGHEST_PRECEDENCE)
        @ConditionalOnBean(MeterRegistry.class)
        @ConditionalOnMissingBean
        NatsMeterObservationHandler varpulisMeterObservationHandler(MeterRegistry registry, Environment environment) {
            boolean asked = environment.getProperty("varpulis.nats.observation-long-task-timers", Boolean.class, false);
            boolean ignored = Binder.get(environment)
                .bind(IGNORED_METERS, Bindable.setOf(String.class))
                .orElse(Set.of())
                .stream()
                .anyMatch(meter -> meter.replace('-', '_').equalsIgnoreCase("long_task_timer"));
            return new NatsMeterObservationHandler(registry, asked && !ignored);
        }

    }

    /** With Micrometer Tracing: death envelopes name their trace, replays link to it. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Tracer.class)
    static class TracesConfiguration {

        /**
         * @param tracer Spring Boot's tracer (Brave or OpenTelemetry), if it made one
         * @param senders the sender tracing handler that decides a publish's sampling
         * first, if there is one
         * @return trace ids, links and sampling decisions through it, or
         * {@link Traces#NONE} without one
         */
        @Bean
        @ConditionalOnMissingBean
        Traces varpulisTraces(ObjectProvider<Tracer> tracer,
                ObjectProvider<NatsSenderTracingObservationHandler> senders,
                ObjectProvider<NatsReceiverTracingObservationHandler> receivers) {
            Tracer found = tracer.getIfAvailable();
            return found == null ? Traces.NONE
                    : new MicrometerTraces(found, senders.getIfAvailable(), receivers.getIfAvailable());
        }

        /**
         * @param tracer Spring Boot's tracer
         * @param propagator Spring Boot's propagator (W3C or B3)
         * @return the substrate's sender tracing handler, first of Boot's tracing
         * handlers: a publish's span is started, and its sampling known, before its
         * observation is built
         */
        @Bean
        @Order(Ordered.HIGHEST_PRECEDENCE)
        @ConditionalOnBean({ Tracer.class, Propagator.class })
        @ConditionalOnMissingBean
        NatsSenderTracingObservationHandler varpulisSenderTracingObservationHandler(Tracer tracer,
                Propagator propagator) {
            return new NatsSenderTracingObservationHandler(tracer, propagator);
        }

        /**
         * @param tracer Spring Boot's tracer
         * @param propagator Spring Boot's propagator (W3C or B3)
         * @return the substrate's receiver tracing handler, first of Boot's tracing
         * handlers: the span of a delivery without trace headers is started, and its
         * sampling known, before its observation is built
         */
        @Bean
        @Order(Ordered.HIGHEST_PRECEDENCE)
        @ConditionalOnBean({ Tracer.class, Propagator.class })
        @ConditionalOnMissingBean
        NatsReceiverTracingObservationHandler varpulisReceiverTracingObservationHandler(Tracer tracer,
                Propagator propagator) {
            return new NatsReceiverTracingObservationHandler(tracer, propagator);
        }

    }

}
