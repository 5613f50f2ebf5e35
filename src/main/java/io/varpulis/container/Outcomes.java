package io.varpulis.container;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * Reading an adapter's outcome: at once when its stage is done, else on the thread that
 * completes it; a stage that fails or completes with nothing is a failed apply. And how
 * failures are named in the container's logs.
 */
final class Outcomes {

    private Outcomes() {
    }

    /**
     * @param stage an adapter's outcome, or {@code null}
     * @param then given the outcome, exactly once
     */
    static void whenDone(CompletionStage<Outcome> stage, Consumer<Outcome> then) {
        CompletableFuture<Outcome> future;
        try {
            future = stage == null ? null : stage.toCompletableFuture();
        }
        catch (RuntimeException e) {
            then.accept(Outcome.failed(ErrorStage.LISTENER, e));
            return;
        }
        if (future == null) {
            then.accept(Outcome.failed(new IllegalStateException("the adapter returned no outcome")));
        }
        else if (future.isDone()) {
            then.accept(outcomeOf(future));
        }
        else {
            future.whenComplete((outcome, error) -> then.accept(outcome != null ? outcome
                    : Outcome.failed(error == null ? new IllegalStateException("no outcome") : unwrap(error))));
        }
    }

    /**
     * @param stage an adapter's outcome, or {@code null}
     * @return whether it is already done, applied, with no element parked: the outcome of
     * most deliveries, which the container acks at once (issue 42: no stage round trip
     * per delivery)
     */
    static boolean appliedNow(CompletionStage<Outcome> stage) {
        return stage instanceof CompletableFuture<Outcome> future && future.isDone()
                && !future.isCompletedExceptionally() && future.getNow(null) == Outcome.applied();
    }

    static Outcome outcomeOf(CompletableFuture<Outcome> done) {
        try {
            Outcome outcome = done.join();
            return outcome != null ? outcome : Outcome.failed(new IllegalStateException("no outcome"));
        }
        catch (CompletionException | CancellationException e) {
            return Outcome.failed(unwrap(e));
        }
    }

    /**
     * @param cause a failure, or {@code null}
     * @return it in one line for a log
     */
    static String describe(Throwable cause) {
        if (cause == null) {
            return "no error";
        }
        return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.toString();
    }

    /**
     * @param error a failure, maybe wrapped by a stage
     * @return the failure itself
     */
    static Throwable unwrap(Throwable error) {
        Throwable t = error;
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

}
