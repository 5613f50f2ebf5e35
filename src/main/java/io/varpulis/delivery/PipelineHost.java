package io.varpulis.delivery;

import io.varpulis.container.DeliveryContainer;
import io.varpulis.container.DeliveryContainerFactory;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.jetstream.ConsumerSettings;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.pipeline.EventProcessor;
import io.varpulis.pipeline.InMemoryKeyValueState;
import io.varpulis.pipeline.KeyValueState;
import io.varpulis.pipeline.KeyValueState.StateFencedException;
import io.varpulis.pipeline.KeyValueState.StateLostException;
import io.varpulis.pipeline.KeyValueStateFactory;
import io.varpulis.pipeline.Partitioning;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.PipelineUnit;
import io.varpulis.pipeline.ProcessorRegistry;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.transport.ClusterTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The pipelines a worker runs (each an unpartitioned pipeline or one partition, SPEC
 * section 11): for each one a {@link DeliveryContainer} per input route edge running its
 * {@link RouteIngress}, a processor from the {@link ProcessorRegistry}, its durable state
 * opened with the placement epoch, and a {@link RouteEmitter} for its outputs. A pipeline
 * whose state another writer took over stops here by itself (its ingress says so at
 * ERROR) and is no longer reported in {@link #status()}.
 * <p>
 * One class, longer than most: deploying (a pipeline or its partitions), stopping
 * (undeployed, fenced or drained) and reporting all read and change the one map of
 * running pipelines under this host's lock; split, a fenced stop could race a redeploy of
 * the same unit. The lock covers the map only: opening a state, binding and draining
 * consumers wait for the server outside it (SPEC section 20).
 */
public class PipelineHost implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PipelineHost.class);

    private final ClusterTransport transport;

    private final ProcessorRegistry processors;

    private final KeyValueStateFactory states;

    private final EventCodec codec;

    private final DeliveryContainerFactory containers;

    private final SubstrateMetrics metrics;

    private final ConsumerSettings consumerSettings;

    private final Map<String, Deployed> deployed = new ConcurrentHashMap<>();

    /** unit key -> why its state could not be opened at its last deploy here. */
    private final Map<String, String> stateFailures = new ConcurrentHashMap<>();

    private final AtomicLong retiredEvents = new AtomicLong();

    /** unit key -> the placement epoch a deploy of it is opening (guarded by this). */
    private final Map<String, Long> deploying = new HashMap<>();

    /**
     * unit key -> the newest epoch an undeploy asked to stop while it was being deployed
     * (guarded by this).
     */
    private final Map<String, Long> undeployedWhileDeploying = new HashMap<>();

    private boolean closed;

    private final OwnershipProofs proofs;

    private final Executor stopper;

    private final Runnable onPause = () -> proveOwnership(Duration.ZERO);

    /**
     * @param containers runs each input edge's durable consumer (and gives the transport
     * and the parker)
     * @param processors the processor types
     * @param states opens each pipeline's state
     * @param codec the event codec
     * @param metrics substrate meters
     * @param consumerSettings durable consumer settings
     * @param threads prove ownership after a pause, stop fenced pipelines
     */
    public PipelineHost(DeliveryContainerFactory containers, ProcessorRegistry processors, KeyValueStateFactory states,
            EventCodec codec, SubstrateMetrics metrics, ConsumerSettings consumerSettings, Threads threads) {
        this.containers = containers;
        this.transport = containers.transport();
        this.processors = processors;
        this.states = states;
        this.codec = codec;
        this.metrics = metrics;
        this.consumerSettings = consumerSettings;
        this.proofs = new OwnershipProofs(threads.ownershipProofs());
        this.stopper = threads.fencedStops();
        PauseDetector.shared().onPause(onPause);
    }

    /**
     * The threads every pipeline of a worker shares (beans of the node:
     * {@code varpulisOwnershipProofExecutor}, {@code varpulisFencedStopExecutor}).
     *
     * @param ownershipProofs runs each pipeline's ownership proof after a pause on a
     * thread of its own (a proof waits for the server, a heartbeat waits for the proofs
     * half its interval at most)
     * @param fencedStops stops fenced pipelines off the consumer threads that found them
     * fenced, one at a time
     */
    public record Threads(Executor ownershipProofs, Executor fencedStops) {
    }

    /**
     * Deploys an unpartitioned pipeline, as
     * {@link #deploy(PipelineGroupSpec, String, int, long)} with
     * {@link Partitioning#NONE}.
     * @param group the group (validated)
     * @param pipeline the pipeline name
     * @param epoch the placement epoch of this deployment
     * @return {@code true} when it was started now, {@code false} when it already ran
     */
    public boolean deploy(PipelineGroupSpec group, String pipeline, long epoch) {
        return deploy(group, pipeline, Partitioning.NONE, epoch);
    }

    /**
     * Deploys one pipeline of a group, or one partition of a partitioned pipeline (SPEC
     * section 11), with its placement epoch. Deploying one that already runs with this
     * epoch or a newer one does nothing; one that runs with an older epoch (placed again
     * meanwhile, SPEC section 9) is stopped and started again with the new one. Its state
     * is opened with the placement epoch, which fences it (see
     * {@link KeyValueStateFactory}): a writer with an older epoch cannot overwrite it. A
     * partition consumes its input edges' partition subjects
     * ({@code ...{from}.{to}.{partition}}) with its own durables and state; partition 0
     * also runs the pipeline's repartitioner on the unpartitioned subjects
     * ({@code ...{from}.{to}}, external publishers' and key-less events): it republishes
     * each event to its key's partition, and parks an event without a text key
     * ({@code unprocessable}).
     * @param group the group (validated)
     * @param pipeline the pipeline name
     * @param partition the partition ({@code 0} to {@code replicas - 1}), or
     * {@link Partitioning#NONE} for an unpartitioned pipeline
     * @param epoch the placement epoch of this deployment
     * ({@link KeyValueStateFactory#NO_PLACEMENT_EPOCH} when the placement has none)
     * @return {@code true} when it was started now, {@code false} when it already ran
     * @throws IllegalArgumentException when the group has no such pipeline or partition,
     * or its processor cannot be created
     * @throws KeyValueState.StateFencedException when a higher placement epoch holds the
     * state
     * @throws KeyValueState.StateException when the state cannot be opened
     */
    public boolean deploy(PipelineGroupSpec group, String pipeline, int partition, long epoch) {
        PipelineGroupSpec.PipelineSpec spec = group.pipeline(pipeline)
            .orElseThrow(() -> new IllegalArgumentException("group " + group.name() + " has no pipeline " + pipeline));
        boolean fits = spec.isPartitioned() ? partition >= 0 && partition < spec.partitions()
                : partition == Partitioning.NONE;
        if (!fits) {
            throw new IllegalArgumentException("pipeline " + group.name() + "/" + pipeline + " has " + spec.partitions()
                    + " partition(s); partition " + partition + " is none of them");
        }
        PipelineUnit unit = new PipelineUnit(group.name(), pipeline, partition);
        String key = unit.key();
        Deployed existing;
        synchronized (this) {
            existing = deployed.get(key);
            if (existing != null && existing.epoch >= epoch) {
                return false;
            }
            Long other = deploying.putIfAbsent(key, epoch);
            if (other != null) {
                throw new IllegalStateException("pipeline " + key + " is being deployed here with placement epoch "
                        + other + "; ask again once it runs");
            }
        }
        // Opening the state and binding the consumers wait for the server: no lock is
        // held
        // meanwhile (SPEC section 20), so a fenced stop, an undeploy or a heartbeat of
        // another pipeline never waits behind this deploy.
        try {
            if (existing != null) {
                log.info("pipeline {} runs with placement epoch {}; restarting it with epoch {}", key, existing.epoch,
                        epoch);
                undeploy(group.name(), pipeline, partition, existing.epoch);
            }
            Deployed running = start(group, spec, unit, epoch);
            synchronized (this) {
                Long undeployedUpTo = undeployedWhileDeploying.remove(key);
                if (closed || undeployedUpTo != null && undeployedUpTo >= epoch) {
                    running.stop();
                    log.info("pipeline {} was undeployed while it was being deployed; stopped", key);
                    return false;
                }
                deployed.put(key, running);
            }
            log.info("deployed pipeline {} on {} input edge(s), placement epoch {}", key, running.containers.size(),
                    epoch);
            return true;
        }
        finally {
            synchronized (this) {
                deploying.remove(key);
                undeployedWhileDeploying.remove(key);
            }
        }
    }

    /** Opens a unit's state and starts consuming its input edges. */
    private Deployed start(PipelineGroupSpec group, PipelineGroupSpec.PipelineSpec spec, PipelineUnit unit,
            long epoch) {
        String key = unit.key();
        EventProcessor processor = processors.create(group, spec);
        KeyValueState state;
        try {
            state = states.open(group.name(), spec.name(), unit.partition(), epoch);
            stateFailures.remove(key);
        }
        catch (KeyValueState.StateException e) {
            stateFailures.put(key, e.getMessage());
            throw e;
        }
        OwnershipFence fence = new OwnershipFence(key, epoch, state, PauseDetector.shared());
        Deployed running = new Deployed(unit, group, new DeployedPipeline(group.name(), spec.name(), processor, state,
                unit.partitionTag(), spec.partitioning().orElse(null), fence), epoch);
        RouteEmitter emitter = RouteEmitter.of(group, group.outputRoutes(spec.name()), transport, codec, metrics)
            .fencedBy(fence);
        try {
            for (RouteEdge edge : group.inputEdges(spec.name())) {
                if (unit.partition() == Partitioning.NONE) {
                    consume(running, running.pipeline, edge, group.eventTypes(edge), emitter, key);
                    continue;
                }
                RouteEmitter toPartitions = RouteEmitter.of(group, routesOf(group, edge), transport, codec, metrics)
                    .fencedBy(fence);
                consume(running, running.pipeline, edge.partition(unit.partition()), group.eventTypes(edge), emitter,
                        key)
                    .reroutingTo(toPartitions);
                if (unit.partition() == 0) {
                    repartition(running, group, spec, edge, toPartitions, key);
                }
            }
        }
        catch (RuntimeException e) {
            running.stop();
            throw e;
        }
        return running;
    }

    private RouteIngress consume(Deployed running, DeployedPipeline applier, RouteEdge edge, List<String> eventTypes,
            OutputEmitter emitter, String key) {
        RouteIngress ingress = new RouteIngress(edge, eventTypes, applier, emitter, codec, containers.parker(),
                (lost, reason) -> {
                    if (reason instanceof StateLostException) {
                        stateFailures.put(key, reason.getMessage());
                    }
                    if (superseded(applier, reason, metrics)) {
                        stopFenced(key, running);
                    }
                });
        running.ingresses.add(ingress);
        // The pipeline's meters exist (at 0) before its first delivery: rate() then sees
        // a first event that is parked.
        running.containers
            .add(containers
                .create(VarpulisJetStream.routeEdgeConsumer(edge.to(), edge.subject(), consumerSettings),
                        applier.name(), metrics.deliveries(applier.name(), applier.partitionTag(), true), 1, ingress)
                .start());
        return ingress;
    }

    /**
     * The routes of one edge ({@code from -> to}): what a repartitioner or a reroute
     * emits along.
     */
    private static List<PipelineGroupSpec.RouteSpec> routesOf(PipelineGroupSpec group, RouteEdge edge) {
        return group.routes()
            .stream()
            .filter(r -> r.fromPipeline().equals(edge.from()) && r.toPipeline().equals(edge.to()))
            .toList();
    }

    /**
     * The repartitioner of one input edge: consumes the unpartitioned subject with the
     * durable an unpartitioned pipeline would have (so a backlog from before the pipeline
     * was partitioned is partitioned too), and emits each event to its key's partition
     * with a {@code Nats-Msg-Id} derived from the input's, acking after the PubAck; an
     * event without a text key fails {@link Partitioning#partitionOf(Event)} and is
     * parked.
     */
    private void repartition(Deployed running, PipelineGroupSpec group, PipelineGroupSpec.PipelineSpec spec,
            RouteEdge edge, RouteEmitter toPartitions, String key) {
        Partitioning partitioning = spec.partitioning().orElseThrow();
        EventProcessor partitioner = (event, context) -> {
            partitioning.partitionOf(event);
            return List.of(context.keyed(event, "repartitioned"));
        };
        DeployedPipeline applier = new DeployedPipeline(group.name(), spec.name(), partitioner,
                new InMemoryKeyValueState(), SubstrateMetrics.REPARTITION, null, running.pipeline.fence());
        consume(running, applier, edge, group.eventTypes(edge), toPartitions, key);
    }

    /**
     * Stops an unpartitioned pipeline, as {@link #undeploy(String, String, int)} with
     * {@link Partitioning#NONE}.
     * @param group the group name
     * @param pipeline the pipeline name
     * @return {@code true} when it was running
     */
    public boolean undeploy(String group, String pipeline) {
        return undeploy(group, pipeline, Partitioning.NONE);
    }

    /**
     * Stops a pipeline or one partition: no new deliveries; unacked ones are redelivered
     * to wherever it runs next.
     * @param group the group name
     * @param pipeline the pipeline name
     * @param partition the partition, or {@link Partitioning#NONE}
     * @return {@code true} when it was running
     */
    public boolean undeploy(String group, String pipeline, int partition) {
        return undeploy(group, pipeline, partition, Long.MAX_VALUE);
    }

    /**
     * Stops a pipeline or one partition, as {@link #undeploy(String, String, int)}, only
     * when it runs with a placement epoch no newer than the given one: an undeploy sent
     * for a stale copy never stops the copy placed here again since (SPEC section 9).
     * @param group the group name
     * @param pipeline the pipeline name
     * @param partition the partition, or {@link Partitioning#NONE}
     * @param upToEpoch the newest placement epoch to stop
     * @return {@code true} when it was running with such an epoch, and is stopped
     */
    public boolean undeploy(String group, String pipeline, int partition, long upToEpoch) {
        String key = new PipelineUnit(group, pipeline, partition).key();
        Deployed running;
        boolean unproven;
        synchronized (this) {
            running = deployed.get(key);
            Long opening = deploying.get(key);
            if (running == null && opening != null && opening <= upToEpoch) {
                undeployedWhileDeploying.merge(key, upToEpoch, Math::max);
            }
            if (running == null || running.epoch > upToEpoch) {
                return false;
            }
            unproven = running.pipeline.fence().unproven();
            deployed.remove(key);
            running.stop();
            retiredEvents.addAndGet(running.pipeline.eventsIn());
        }
        StateFencedException superseded = running.pipeline.fence().undeployed(unproven);
        if (superseded != null) {
            superseded(running.pipeline, superseded, metrics);
        }
        log.info("undeployed pipeline {}", key);
        return true;
    }

    /**
     * Stops a pipeline whose state another writer owns, unless it was deployed again
     * meanwhile. Off the ingress's thread, which may be the consumer's own dispatcher.
     */
    private void stopFenced(String key, Deployed running) {
        stopper.execute(() -> {
            synchronized (this) {
                if (deployed.remove(key, running)) {
                    running.fence();
                    retiredEvents.addAndGet(running.pipeline.eventsIn());
                    log.info(
                            "pipeline {} stopped on this worker: {} (see the ERROR above); it runs again here only "
                                    + "when it is deployed again",
                            key,
                            stateFailures.containsKey(key) ? "its state is gone" : "another writer owns its state");
                }
            }
        });
    }

    /**
     * Proves, after a pause of this process ({@link PauseDetector}), that this worker
     * still owns each pipeline it runs, by reading each one's state fence from the
     * server, all of them in parallel; one that a later placement took over meanwhile is
     * stopped here before any further effect, said once at ERROR and counted. Does
     * nothing for a pipeline whose ownership was proven since the last pause. Called by
     * the pause detector and before each heartbeat, so that a heartbeat never reports a
     * pipeline this worker knows it no longer owns.
     * @param budget how long to wait for the proofs, at most: a heartbeat waits half its
     * interval, then reports what is not known superseded yet (a proof still running
     * stops its pipeline when it ends)
     */
    public void proveOwnership(Duration budget) {
        Map<String, Runnable> proofs = new HashMap<>();
        deployed.forEach((key, running) -> {
            OwnershipFence fence = running.pipeline.fence();
            if (fence.unproven()) {
                proofs.put(key, () -> proveOwnership(key, running));
            }
            else if (!fence.trusted()) {
                // Known superseded: stopped here without reading anything.
                proveOwnership(key, running);
            }
        });
        this.proofs.prove(proofs, budget);
    }

    /**
     * Reads the pipeline's fence when it is unproven; stops it here when a later
     * placement owns it.
     */
    private void proveOwnership(String key, Deployed running) {
        StateFencedException superseded = running.pipeline.fence().recheck();
        if (superseded != null) {
            superseded(running.pipeline, superseded, metrics);
            stopFenced(key, running);
        }
    }

    /**
     * Stops every pipeline gracefully: stops pulling, lets the deliveries already
     * received be applied and acked (outputs confirmed) within the timeout, then closes.
     * What is not finished by then stays unacked and is redelivered, never acked.
     * @param timeout how long to wait for in-flight deliveries, at most ({@code 0}: stop
     * at once)
     * @return how many pipelines were running
     */
    public int drain(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Deployed> all;
        synchronized (this) {
            all = new ArrayList<>(deployed.values());
        }
        for (Deployed d : all) {
            d.containers.forEach(c -> c.drain(remaining(deadline)));
            undeploy(d.unit.group(), d.unit.pipeline(), d.unit.partition());
        }
        return all.size();
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    /**
     * Says once per pipeline, at ERROR, that it stops on this worker because a later
     * placement owns it, and counts it
     * ({@code varpulis.state.fenced{pipeline,partition}}, the meter OPERATING.md's alert
     * watches).
     * @param pipeline the superseded pipeline
     * @param reason who owns it now
     * @param metrics the meters
     * @return whether this call said it (the first for the pipeline)
     */
    static boolean superseded(DeployedPipeline pipeline, StateFencedException reason, SubstrateMetrics metrics) {
        if (!pipeline.fence().supersede(reason)) {
            return false;
        }
        if (reason instanceof StateLostException) {
            log.error("pipeline {}/{} (placement epoch {}) stops consuming on this worker before any further effect: "
                    + "{}. Its unacked events stay in the stream; the coordinator places it again, on a new state "
                    + "bucket, once this worker's heartbeat no longer reports it (its state_failures say why). If "
                    + "nobody deleted the bucket, check the server's logs and this node's permissions on it.",
                    pipeline.group(), pipeline.name(), pipeline.fence().epoch(), reason.getMessage());
            return true;
        }
        log.error("pipeline {}/{} (placement epoch {}) stops consuming on this worker before any further effect: {}. "
                + "Nothing to do here: its unacked events stay in the stream for the worker that owns it now; "
                + "if this repeats, look for long pauses of this process (GC, a frozen VM) or a slow network "
                + "to NATS.", pipeline.group(), pipeline.name(), pipeline.fence().epoch(), reason.getMessage());
        metrics.fenced(pipeline.name(), pipeline.partitionTag());
        return true;
    }

    /**
     * @return why the state of a unit could not be opened at its last deploy on this
     * worker, by unit key ({@code group/pipeline[/partition]}), until a deploy of it
     * opens its state: for the topology (SPEC section 9)
     */
    public Map<String, String> stateFailures() {
        return Map.copyOf(stateFailures);
    }

    /**
     * @return the running pipelines with their counts, but for one found superseded and
     * not stopped yet (call {@link #proveOwnership(Duration)} first after a pause of the
     * process)
     */
    public List<PipelineStatus> status() {
        return deployed.values()
            .stream()
            .filter(d -> d.pipeline.fence().trusted())
            .map(d -> new PipelineStatus(d.pipeline.group(), d.pipeline.name(), d.pipeline.eventsIn(),
                    d.pipeline.eventsOut(), d.epoch, d.unit.partitionOrNull()))
            .sorted((a, b) -> (a.group() + "/" + a.pipeline() + "/" + a.partition())
                .compareTo(b.group() + "/" + b.pipeline() + "/" + b.partition()))
            .toList();
    }

    /**
     * @param name a group's name
     * @return the group, when a pipeline of it runs here (an injection into it then goes
     * to its partitions)
     */
    public Optional<PipelineGroupSpec> group(String name) {
        return deployed.values().stream().filter(d -> d.group.name().equals(name)).map(d -> d.group).findFirst();
    }

    /**
     * @return the processor types this host can run (its registry's), announced in the
     * worker's registration
     */
    public Collection<String> processorTypes() {
        return processors.names();
    }

    /**
     * @return events applied by every pipeline since this host started
     */
    public long eventsProcessed() {
        return deployed.values().stream().mapToLong(d -> d.pipeline.eventsIn()).sum() + retiredEvents.get();
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        PauseDetector.shared().removeListener(onPause);
        drain(Duration.ZERO);
    }

    /**
     * A running pipeline's counts.
     *
     * @param group the group
     * @param pipeline the pipeline
     * @param eventsIn events applied
     * @param eventsOut events emitted
     * @param epoch the placement epoch it runs with
     * @param partition the partition it runs, {@code null} for an unpartitioned pipeline
     */
    public record PipelineStatus(String group, String pipeline, long eventsIn, long eventsOut, long epoch,
            Integer partition) {
    }

    /** A running pipeline: what it applies with, its ingresses and their containers. */
    private static final class Deployed {

        private final PipelineUnit unit;

        private final PipelineGroupSpec group;

        private final DeployedPipeline pipeline;

        private final long epoch;

        private final List<DeliveryContainer> containers = new ArrayList<>();

        private final List<RouteIngress> ingresses = new ArrayList<>();

        private Deployed(PipelineUnit unit, PipelineGroupSpec group, DeployedPipeline pipeline, long epoch) {
            this.unit = unit;
            this.group = group;
            this.pipeline = pipeline;
            this.epoch = epoch;
        }

        /**
         * Ingresses first (their broker waits give up, and what fails from now on is left
         * unacked, never nak'ed), then the fence (no further effect), the containers, the
         * state.
         */
        private void stop() {
            ingresses.forEach(RouteIngress::stop);
            pipeline.fence().stop();
            containers.forEach(DeliveryContainer::stop);
            pipeline.state().close();
        }

        /**
         * As {@link #stop()}, another writer owning the pipeline: its containers leave
         * everything they hold.
         */
        private void fence() {
            ingresses.forEach(RouteIngress::stop);
            pipeline.fence().stop();
            containers.forEach(DeliveryContainer::fence);
            pipeline.state().close();
        }

    }

}
