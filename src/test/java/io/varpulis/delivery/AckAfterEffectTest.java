package io.varpulis.delivery;

import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.InMemoryKeyValueState;
import io.varpulis.test.TestPipelines;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code ProcessingContext.ackAfter} (issue 27): an effect whose confirmation comes later
 * (a group-committed sync) gates the apply's confirmation, which the route ingress waits
 * for before the ack, and its failure fails it.
 */
class AckAfterEffectTest {

    @Test
    void theApplyIsConfirmedOnlyOnceTheEffectIs_andAFailedEffectFailsIt() {
        AtomicReference<CompletableFuture<Void>> effect = new AtomicReference<>();
        DeployedPipeline pipeline = TestPipelines.deployed("g", "sink", (event, context) -> {
            CompletableFuture<Void> confirmed = new CompletableFuture<>();
            effect.set(confirmed);
            context.ackAfter(confirmed);
            return List.of();
        }, new InMemoryKeyValueState());

        CompletableFuture<Void> first = applied(pipeline, "m1");
        assertThat(first).as("not confirmed while the effect is not").isNotDone();
        effect.get().complete(null);
        assertThat(first).as("confirmed with it").isCompleted();

        CompletableFuture<Void> second = applied(pipeline, "m2");
        effect.get().completeExceptionally(new IOException("fdatasync failed"));
        assertThat(second).as("a failed effect fails the apply: the input is not acked").isCompletedExceptionally();
    }

    @Test
    void ackAfterOnceTheApplyReturnedIsRefused() {
        AtomicReference<io.varpulis.pipeline.ProcessingContext> kept = new AtomicReference<>();
        DeployedPipeline pipeline = TestPipelines.deployed("g", "late", (event, context) -> {
            kept.set(context);
            return List.of();
        }, new InMemoryKeyValueState());
        applied(pipeline, "m1");
        assertThatThrownBy(() -> kept.get().ackAfter(CompletableFuture.completedFuture(null)))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("after the apply");
    }

    private static CompletableFuture<Void> applied(DeployedPipeline pipeline, String id) {
        try {
            return pipeline.apply(Event.of("In", Map.of()), id, 1).stored();
        }
        catch (Exception e) {
            throw new AssertionError(e);
        }
    }

}
