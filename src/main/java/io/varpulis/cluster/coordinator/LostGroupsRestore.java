package io.varpulis.cluster.coordinator;

import io.varpulis.cluster.protocol.ControlPlaneBuckets;
import io.varpulis.jetstream.JetStreamLoss;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.TaskScheduler;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;

/**
 * When the servers lost the group store ({@value ControlPlaneBuckets#GROUPS} gone, or
 * gone back: a power loss, issue 43), writes back the groups this coordinator knows
 * ({@link GroupDeclarations#restore()}), once the bucket answers again (it is declared
 * again by the node's {@code DeclarationKeeper}): asked every {@link #RETRY} for at most
 * {@value #TRIES} tries.
 */
public final class LostGroupsRestore implements Consumer<JetStreamLoss> {

    static final Duration RETRY = Duration.ofSeconds(2);

    static final int TRIES = 30;

    private static final Logger log = LoggerFactory.getLogger(LostGroupsRestore.class);

    private static final String STREAM = "KV_" + ControlPlaneBuckets.GROUPS;

    private final GroupDeclarations declarations;

    private final TaskScheduler scheduler;

    /**
     * @param declarations the groups this coordinator knows
     * @param scheduler where the writes back run
     */
    public LostGroupsRestore(GroupDeclarations declarations, TaskScheduler scheduler) {
        this.declarations = declarations;
        this.scheduler = scheduler;
    }

    /**
     * @param loss a loss the node found; only the group store's matter
     */
    @Override
    public void accept(JetStreamLoss loss) {
        if (STREAM.equals(loss.stream()) && (loss.kind() == JetStreamLoss.Kind.BUCKET_GONE
                || loss.kind() == JetStreamLoss.Kind.STREAM_WENT_BACK)) {
            attempt(1);
        }
    }

    private void attempt(int tryNumber) {
        scheduler.schedule(() -> {
            try {
                declarations.restore();
            }
            catch (GroupStoreUnavailableException | IllegalStateException e) {
                if (tryNumber < TRIES) {
                    attempt(tryNumber + 1);
                }
                else {
                    log.warn("could not write the lost pipeline groups back to {} after {} tries ({}); declare them "
                            + "again through the API", ControlPlaneBuckets.GROUPS, TRIES, e.toString());
                }
            }
        }, Instant.now().plus(RETRY));
    }

}
