package io.varpulis.delivery;

import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.nats.NatsProperties;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.pipeline.EventProcessor;
import io.varpulis.pipeline.KeyValueState;
import io.varpulis.pipeline.KeyValueStateFactory;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.ProcessorRegistry;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.Consumption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The pipelines a worker runs: for each deployed pipeline one {@link RouteIngress} per input route edge, a processor
 * from the {@link ProcessorRegistry}, its durable state, and a {@link RouteEmitter} for its outputs.
 */
public class PipelineHost implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PipelineHost.class);

    private final ClusterTransport transport;
    private final ProcessorRegistry processors;
    private final KeyValueStateFactory states;
    private final EventCodec codec;
    private final DeadLetterParker parker;
    private final SubstrateMetrics metrics;
    private final NatsProperties.Consumer consumerSettings;
    private final Map<String, Deployed> deployed = new ConcurrentHashMap<>();
    private final AtomicLong retiredEvents = new AtomicLong();

    /**
     * @param transport        the substrate
     * @param processors       the processor types
     * @param states           opens each pipeline's state
     * @param codec            the event codec
     * @param parker           parks poison events
     * @param metrics          substrate meters
     * @param consumerSettings durable consumer settings
     */
    public PipelineHost(ClusterTransport transport, ProcessorRegistry processors, KeyValueStateFactory states,
                        EventCodec codec, DeadLetterParker parker, SubstrateMetrics metrics,
                        NatsProperties.Consumer consumerSettings) {
        this.transport = transport;
        this.processors = processors;
        this.states = states;
        this.codec = codec;
        this.parker = parker;
        this.metrics = metrics;
        this.consumerSettings = consumerSettings;
    }

    /**
     * Deploys one pipeline of a group with its placement epoch. Deploying one that already runs with this epoch or a
     * newer one does nothing; one that runs with an older epoch (placed again meanwhile, SPEC section 9) is stopped
     * and started again with the new one.
     *
     * @param group    the group (validated)
     * @param pipeline the pipeline name
     * @param epoch    the placement epoch, which fences the pipeline's state: a writer with an older one must not
     *                 overwrite it
     * @return {@code true} when it was started now, {@code false} when it already ran
     * @throws IllegalArgumentException when the group has no such pipeline or its processor cannot be created
     */
    public synchronized boolean deploy(PipelineGroupSpec group, String pipeline, long epoch) {
        String key = key(group.name(), pipeline);
        Deployed existing = deployed.get(key);
        if (existing != null) {
            if (existing.epoch >= epoch) {
                return false;
            }
            log.info("pipeline {} runs with placement epoch {}; restarting it with epoch {}", key, existing.epoch,
                    epoch);
            undeploy(group.name(), pipeline);
        }
        PipelineGroupSpec.PipelineSpec spec = group.pipeline(pipeline).orElseThrow(() ->
                new IllegalArgumentException("group " + group.name() + " has no pipeline " + pipeline));
        Deployed running = new Deployed(group.name(), pipeline, epoch);
        EventProcessor processor = counting(processors.create(group, spec), running);
        KeyValueState state = states.open(group.name(), pipeline);
        RouteEmitter emitter = new RouteEmitter(group.name(), group.outputRoutes(pipeline), transport, codec,
                metrics);
        try {
            for (RouteEdge edge : group.inputEdges(pipeline)) {
                RouteIngress ingress = new RouteIngress(edge, processor, emitter, state, codec, parker, metrics,
                        consumerSettings.getNakDelay());
                running.ingresses.add(ingress);
                running.consumptions.add(ingress.start(transport, consumerSettings));
            }
        } catch (RuntimeException e) {
            running.consumptions.forEach(Consumption::close);
            throw e;
        }
        deployed.put(key, running);
        log.info("deployed pipeline {}/{} on {} input edge(s), placement epoch {}", group.name(), pipeline,
                running.consumptions.size(), epoch);
        return true;
    }

    /**
     * Stops a pipeline: no new deliveries; unacked ones are redelivered to wherever it runs next.
     *
     * @param group    the group name
     * @param pipeline the pipeline name
     * @return {@code true} when it was running
     */
    public synchronized boolean undeploy(String group, String pipeline) {
        Deployed running = deployed.remove(key(group, pipeline));
        if (running == null) {
            return false;
        }
        running.consumptions.forEach(Consumption::close);
        retiredEvents.addAndGet(running.eventsIn.get());
        log.info("undeployed pipeline {}/{}", group, pipeline);
        return true;
    }

    /**
     * Stops every pipeline gracefully: stops pulling, lets the deliveries already received be applied and acked
     * (outputs confirmed) within the timeout, then closes. What is not finished by then stays unacked and is
     * redelivered, never acked.
     *
     * @param timeout how long to wait for in-flight deliveries, at most ({@code 0}: stop at once)
     * @return how many pipelines were running
     */
    public synchronized int drain(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Deployed> all = new ArrayList<>(deployed.values());
        for (Deployed d : all) {
            d.consumptions.forEach(c -> c.drain(remaining(deadline)));
        }
        for (Deployed d : all) {
            while (d.ingresses.stream().anyMatch(i -> i.inFlight() > 0) && System.nanoTime() < deadline) {
                sleepBriefly();
            }
            int unfinished = d.ingresses.stream().mapToInt(RouteIngress::inFlight).sum();
            if (unfinished > 0) {
                log.warn("pipeline {}/{}: {} delivery(ies) still in flight after the drain timeout; left unacked "
                        + "for redelivery", d.group, d.pipeline, unfinished);
            }
            undeploy(d.group, d.pipeline);
        }
        return all.size();
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    private static void sleepBriefly() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * @return the running pipelines with their counts
     */
    public List<PipelineStatus> status() {
        return deployed.values().stream().map(d -> new PipelineStatus(d.group, d.pipeline, d.eventsIn.get(),
                d.eventsOut.get(), d.epoch)).sorted((a, b) -> (a.group() + a.pipeline()).compareTo(b.group() + b.pipeline()))
                .toList();
    }

    /**
     * @return events applied by every pipeline since this host started
     */
    public long eventsProcessed() {
        return deployed.values().stream().mapToLong(d -> d.eventsIn.get()).sum() + retiredEvents.get();
    }

    @Override
    public void close() {
        drain(Duration.ZERO);
    }

    /**
     * Counts, and applies one event at a time per pipeline: a pipeline with several input edges gets deliveries on
     * several threads, and processors (like the detector's read-then-write of its state) rely on one at a time.
     */
    private static EventProcessor counting(EventProcessor processor, Deployed running) {
        return (event, context) -> {
            List<Event> outputs;
            synchronized (running) {
                outputs = processor.process(event, context);
            }
            running.eventsIn.incrementAndGet();
            running.eventsOut.addAndGet(outputs == null ? 0 : outputs.size());
            return outputs;
        };
    }

    private static String key(String group, String pipeline) {
        return group + "/" + pipeline;
    }

    /**
     * A running pipeline's counts.
     *
     * @param group     the group
     * @param pipeline  the pipeline
     * @param eventsIn  events applied
     * @param eventsOut events emitted
     * @param epoch     the placement epoch it runs with
     */
    public record PipelineStatus(String group, String pipeline, long eventsIn, long eventsOut, long epoch) {
    }

    private static final class Deployed {
        private final String group;
        private final String pipeline;
        private final long epoch;
        private final List<Consumption> consumptions = new ArrayList<>();
        private final List<RouteIngress> ingresses = new ArrayList<>();
        private final AtomicLong eventsIn = new AtomicLong();
        private final AtomicLong eventsOut = new AtomicLong();

        private Deployed(String group, String pipeline, long epoch) {
            this.group = group;
            this.pipeline = pipeline;
            this.epoch = epoch;
        }
    }
}
