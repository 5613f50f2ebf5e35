package io.varpulis.cluster.coordinator;

import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.ProcessorRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The pipeline groups of this coordinator's cluster (SPEC sections 6 and 9): the group
 * store is the truth and every coordinator watches it, so a group declared or removed on
 * one coordinator is declared or removed on all; the groups configured under
 * {@code varpulis.cluster.groups} are declared at start when the store lacks them. A
 * group declared or removed here, through the operator API, is checked, written to the
 * store, then placed or undeployed by the leader ({@link PlacementLoop}).
 */
public class GroupDeclarations implements GroupStore.Listener {

    private static final Logger log = LoggerFactory.getLogger(GroupDeclarations.class);

    private final GroupSettings settings;

    private final ClusterState state;

    private final ProcessorRegistry processors;

    private final GroupStore groups;

    private final OtherClusters otherClusters;

    private final PlacementLoop placement;

    private final GroupResources.Purger purger;

    private AutoCloseable watch;

    /**
     * @param settings the configured groups, max-partitions, command-timeout and
     * heartbeat-interval
     * @param state the bookkeeping that holds the groups
     * @param processors validates the processors of a declared group
     * @param groups the cluster's groups, shared by its coordinators
     * @param otherClusters the clusters of the account whose group names are taken
     * @param placement places and undeploys the groups' pipelines (on the leader)
     * @param purger deletes a purged group's consumers and state
     * ({@link GroupResources.Purger#NOTHING} on core)
     */
    public GroupDeclarations(GroupSettings settings, ClusterState state, ProcessorRegistry processors,
            GroupStore groups, OtherClusters otherClusters, PlacementLoop placement, GroupResources.Purger purger) {
        this.settings = settings;
        this.state = state;
        this.processors = processors;
        this.groups = groups;
        this.otherClusters = otherClusters;
        this.placement = placement;
        this.purger = purger;
    }

    /**
     * Watches the group store (every stored group of this cluster is known when this
     * returns), then declares each configured group the store lacks.
     * @throws IllegalStateException when the store cannot be read
     */
    public synchronized void start() {
        watch = groups.watch(this);
        settings.configured().forEach(named -> {
            if (state.group(named.name()).isEmpty()) {
                try {
                    declare(named);
                }
                catch (IllegalStateException exists) {
                    log.debug("configured group {} was stored by another coordinator meanwhile", named.name());
                }
            }
        });
    }

    /**
     * Writes again every group this coordinator knows that the group store no longer
     * holds: the store lost them (issue 43: a power loss of servers without
     * {@code sync_interval: always} took the bucket's content with it), and a coordinator
     * started later would not know them, nor leave their pipelines running. A group
     * another coordinator wrote back meanwhile is left as it is.
     * @return how many were written back
     * @throws GroupStoreUnavailableException when the store does not answer (asked again
     * by the caller)
     */
    public int restore() {
        int restored = 0;
        for (PipelineGroupSpec group : state.groups()) {
            if (groups.holds(group.name())) {
                continue;
            }
            try {
                groups.create(group);
                restored++;
                log.warn("pipeline group {} was lost by the group store and is written back from this coordinator's "
                        + "memory", group.name());
            }
            catch (IllegalStateException exists) {
                log.debug("pipeline group {} was written back by another coordinator meanwhile", group.name());
            }
        }
        return restored;
    }

    /** Stops watching the group store. */
    public synchronized void stop() {
        if (watch == null) {
            return;
        }
        try {
            watch.close();
        }
        catch (Exception e) {
            log.debug("closing the group watch: {}", e.toString());
        }
        watch = null;
    }

    /**
     * Adds a group to the group store, where every coordinator of the cluster sees it; on
     * the leader, places its pipelines on ready workers and waits (up to command-timeout)
     * for the workers' answers, so that what is read next says what runs. A follower
     * leaves the placing to the leader.
     * @param group the group
     * @throws IllegalArgumentException when the group is invalid (names, routes,
     * processor settings)
     * @throws IllegalStateException when a group of that name exists in this cluster, or
     * another live cluster of this NATS account uses the name (their route subjects and
     * durable consumers would be shared)
     * @throws GroupStoreUnavailableException when the group store did not confirm the
     * write
     */
    public void declare(PipelineGroupSpec group) {
        group.validate(settings.maxPartitions());
        processors.validate(group);
        GroupChecks.rejectDurableNameCollisions(state.groups(), group);
        GroupChecks.rejectNameOfAnotherCluster(group, groups.otherClusters(), otherClusters::hasLiveLeader);
        groups.create(group);
        state.addGroup(group);
        log.info("pipeline group {} declared with {} pipeline(s)", group.name(), group.pipelines().size());
        awaitQuietly(placement.placeGroup(group.name()));
    }

    private void awaitQuietly(CompletableFuture<?> replies) {
        try {
            replies.get(settings.commandTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        catch (ExecutionException | TimeoutException e) {
            // Each deploy records its own outcome; what has not answered yet shows as
            // deploying.
        }
    }

    /**
     * Removes a group from the group store (every coordinator of the cluster forgets it)
     * and undeploys its pipelines (the leader: at once; a follower: the leader does,
     * seeing the delete); with purge, also deletes its durable consumers and key-value
     * state (JetStream), once its pipelines stopped, so a group declared again starts
     * from nothing.
     * @param name the group name
     * @param purge delete consumers and state too
     * @return {@code false} when the group was unknown
     * @throws GroupStoreUnavailableException when the store did not confirm the delete
     */
    public boolean remove(String name, boolean purge) {
        PipelineGroupSpec group = state.group(name).orElse(null);
        Optional<Map<String, String>> removed = state.removeGroup(name);
        if (group == null || removed.isEmpty()) {
            return false;
        }
        try {
            groups.delete(name);
        }
        catch (RuntimeException e) {
            state.addGroup(group);
            throw e;
        }
        if (placement.isLeading()) {
            placement.undeployAll(removed.get()).join();
        }
        else if (purge) {
            GroupChecks.awaitStoppedEverywhere(name, state, state.clock(), settings.stopWait());
        }
        if (purge) {
            try {
                purger.purge(group);
            }
            catch (Exception e) {
                log.warn("pipeline group {} removed, but its JetStream objects were not all purged: {}", name,
                        e.toString());
            }
        }
        log.info("pipeline group {} removed{}", name, purge ? " and purged" : "");
        return true;
    }

    @Override
    public void stored(PipelineGroupSpec group) {
        if (state.addGroup(group)) {
            log.info("pipeline group {} found in the group store", group.name());
            placement.placeSoonIfLeading();
        }
    }

    @Override
    public void removed(String name) {
        state.removeGroup(name).ifPresent(placed -> {
            log.info("pipeline group {} was removed from the group store", name);
            if (placement.placesNow()) {
                placement.undeployAll(placed);
            }
        });
    }

}
