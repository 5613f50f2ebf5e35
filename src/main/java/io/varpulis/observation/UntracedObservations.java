package io.varpulis.observation;

import io.micrometer.observation.GlobalObservationConvention;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationFilter;
import io.micrometer.observation.ObservationPredicate;

import java.util.List;

/**
 * What a publish or a delivery that no span records still gets from observation (SPEC
 * section 14, issue 32): its timer ({@code varpulis_nats_send_seconds},
 * {@code varpulis_nats_process_seconds}), recorded by the substrate's
 * {@link NatsMeterObservationHandler} without a Micrometer {@link Observation} around it.
 * A trace known not to be sampled (its incoming headers say so, or the tracer sampled out
 * the root) needs no span, so the Observation's object, its context's maps, its handler
 * look-ups and its tracing handlers were most of what observation cost per message; its
 * timer is all that is left to record.
 * <p>
 * What decides the timer is what would have decided it in an Observation: the convention
 * (the application's convention bean, else a {@link GlobalObservationConvention} bean
 * that supports the context, else the default), its name and low-cardinality key values
 * asked when the message ends, then every {@link ObservationFilter} in order; an
 * {@link ObservationPredicate} that refuses it turns it off, trace headers included, as a
 * no-op Observation would. The predicates, filters and global conventions are the
 * application's beans, which are what Spring Boot registers on the registry
 * ({@code management.observations.enable.*},
 * {@code management.observations.key-values.*}); one added to the registry by hand in a
 * customizer is not seen here. No {@link io.micrometer.observation.ObservationHandler} is
 * notified of an untraced message: a handler of the application's own sees the traced
 * ones only.
 */
public class UntracedObservations {

    /** No untraced path: every message is observed with a Micrometer Observation. */
    public static final UntracedObservations NONE = new UntracedObservations(null, List.of(), List.of(), List.of(),
            false);

    // Arrays, not lists: walked for every message, and a list's iterator is an object per
    // walk.
    private final NatsMeterObservationHandler timers;

    private final ObservationPredicate[] predicates;

    private final ObservationFilter[] filters;

    private final GlobalObservationConvention<?>[] conventions;

    private final boolean enabled;

    /**
     * @param timers the substrate's meter handler, or {@code null} without a meter
     * registry (no timer then, as with an Observation)
     * @param predicates the application's observation predicates, in order
     * @param filters the application's observation filters, in order
     * @param conventions the application's global observation conventions, in order
     */
    public UntracedObservations(NatsMeterObservationHandler timers, List<ObservationPredicate> predicates,
            List<ObservationFilter> filters, List<GlobalObservationConvention<?>> conventions) {
        this(timers, predicates, filters, conventions, true);
    }

    private UntracedObservations(NatsMeterObservationHandler timers, List<ObservationPredicate> predicates,
            List<ObservationFilter> filters, List<GlobalObservationConvention<?>> conventions, boolean enabled) {
        this.timers = timers;
        this.predicates = predicates.toArray(ObservationPredicate[]::new);
        this.filters = filters.toArray(ObservationFilter[]::new);
        this.conventions = conventions.toArray(GlobalObservationConvention<?>[]::new);
        this.enabled = enabled;
    }

    /**
     * @return {@code false} for {@link #NONE}
     */
    public boolean enabled() {
        return enabled;
    }

    /**
     * Names the context with the convention an Observation would use and asks the
     * predicates about it.
     * @param context a new context
     * @param custom the application's convention bean, or {@code null}
     * @param fallback the default convention
     * @param <T> the context's type
     * @return the convention, or {@code null} when a predicate turns the observation off
     */
    @SuppressWarnings("unchecked")
    <T extends Observation.Context> ObservationConvention<T> convention(T context, ObservationConvention<T> custom,
            ObservationConvention<T> fallback) {
        ObservationConvention<T> convention = custom;
        if (convention == null) {
            for (GlobalObservationConvention<?> global : conventions) {
                if (global.supportsContext(context)) {
                    convention = (ObservationConvention<T>) global;
                    break;
                }
            }
        }
        if (convention == null) {
            convention = fallback;
        }
        String name = convention.getName();
        context.setName(name);
        for (ObservationPredicate predicate : predicates) {
            if (!predicate.test(name, context)) {
                return null;
            }
        }
        return convention;
    }

    /**
     * Starts the timer.
     * @param context a context named by {@link #convention}
     */
    void start(Observation.Context context) {
        if (timers != null) {
            timers.onStart(context);
        }
    }

    /**
     * Records the timer, with the convention's key values asked now (as an Observation
     * asks them when it stops) and the filters applied.
     * @param context the context, its error set if it failed
     * @param convention what {@link #convention} returned for it
     * @param <T> the context's type
     */
    <T extends Observation.Context> void stop(T context, ObservationConvention<T> convention) {
        if (timers == null) {
            return;
        }
        context.addLowCardinalityKeyValues(convention.getLowCardinalityKeyValues(context));
        Observation.Context filtered = context;
        for (ObservationFilter filter : filters) {
            filtered = filter.map(filtered);
        }
        timers.onStop(filtered);
    }

}
