package io.varpulis.delivery;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs the ownership proofs of a worker's pipelines after a pause (SPEC section 9,
 * fencing every effect) in parallel, off the caller's thread, and waits for them at most
 * a given budget: a heartbeat is never held up for longer than that by a server that
 * answers slowly (each proof may take a state read's full timeout). A proof that outlives
 * the budget goes on and acts when it ends; at most one runs per pipeline at a time.
 */
final class OwnershipProofs {

    private static final Logger log = LoggerFactory.getLogger(OwnershipProofs.class);

    private final Executor provers;

    /** unit key -> its proof still running. */
    private final Map<String, CompletableFuture<Void>> running = new ConcurrentHashMap<>();

    /**
     * @param provers runs each proof on a thread of its own (a proof waits for the
     * server)
     */
    OwnershipProofs(Executor provers) {
        this.provers = provers;
    }

    /**
     * Starts the proof of each unit that has none running yet, and waits until all of
     * them ended or the budget is spent.
     * @param proofs unit key -> its proof (reads the server; acts on its result itself)
     * @param budget how long to wait, at most ({@code 0}: do not wait)
     * @return whether every proof ended within the budget
     */
    boolean prove(Map<String, Runnable> proofs, Duration budget) {
        List<CompletableFuture<Void>> pending = new ArrayList<>();
        proofs.forEach((key, proof) -> pending.add(start(key, proof)));
        if (pending.isEmpty()) {
            return true;
        }
        try {
            CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                .get(budget.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        }
        catch (TimeoutException e) {
            log.debug("ownership proofs of {} pipeline(s) took longer than {} ms; going on without them",
                    pending.size(), budget.toMillis());
            return false;
        }
        catch (ExecutionException e) {
            return true;
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private CompletableFuture<Void> start(String key, Runnable proof) {
        CompletableFuture<Void> started = new CompletableFuture<>();
        CompletableFuture<Void> already = running.putIfAbsent(key, started);
        if (already != null) {
            return already;
        }
        provers.execute(() -> {
            try {
                proof.run();
            }
            catch (RuntimeException e) {
                log.warn("proving that this worker still owns pipeline {} failed: {}; it is proven again before its "
                        + "next effect", key, e.toString());
            }
            finally {
                running.remove(key, started);
                started.complete(null);
            }
        });
        return started;
    }

}
