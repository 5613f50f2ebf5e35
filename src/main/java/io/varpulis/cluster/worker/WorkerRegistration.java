package io.varpulis.cluster.worker;

import io.nats.client.Message;
import io.varpulis.cluster.node.CoreRequests;
import io.varpulis.cluster.protocol.Registration;
import io.varpulis.cluster.protocol.WorkerCapabilities;
import io.varpulis.delivery.PipelineHost;
import io.varpulis.nats.Subjects;
import io.varpulis.support.Backoffs;
import io.varpulis.support.DaemonThreads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.util.backoff.BackOffExecution;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * A worker's registration with the coordinators (SPEC sections 5 and 17): core
 * request/reply on {@code varpulis.cluster.register}, retried with a backoff of 1 s
 * doubling to 30 s until a coordinator accepts, and again whenever a coordinator asks
 * ({@code register} command: it restarted and no longer knows this worker). The request
 * announces what the worker can run ({@link WorkerCapabilities}) and always carries an
 * {@code api_key}. A refusal that retrying cannot help (another substrate, a wrong
 * api-key) makes the worker unready with the reason and, with exit-on-refusal, ends the
 * node ({@link RefusalExit}); after an acceptance the worker heartbeats at once.
 */
public class WorkerRegistration {

    private static final Logger log = LoggerFactory.getLogger(WorkerRegistration.class);

    private final WorkerIdentity identity;

    private final WorkerSettings settings;

    private final RegistrationSettings how;

    private final CoreRequests requests;

    private final PipelineHost host;

    private final HeartbeatPublisher heartbeats;

    private final Consumer<String> onFinalRefusal;

    private final AtomicBoolean registered = new AtomicBoolean();

    private final AtomicBoolean registering = new AtomicBoolean();

    private volatile boolean active;

    private volatile String refusal;

    /**
     * @param identity the worker's id, address and substrate, as announced
     * @param settings the cluster's name and command-timeout
     * @param how api-key, max-pipelines, registration backoff and exit-on-refusal
     * @param requests sends the registration (with the trace context when observed)
     * @param host what the worker runs and can run
     * @param heartbeats heartbeats at once after an acceptance
     * @param onFinalRefusal told the reason when a coordinator refused this worker for
     * good and exit-on-refusal is on
     */
    public WorkerRegistration(WorkerIdentity identity, WorkerSettings settings, RegistrationSettings how,
            CoreRequests requests, PipelineHost host, HeartbeatPublisher heartbeats, Consumer<String> onFinalRefusal) {
        this.identity = identity;
        this.settings = settings;
        this.how = how;
        this.requests = requests;
        this.host = host;
        this.heartbeats = heartbeats;
        this.onFinalRefusal = onFinalRefusal;
    }

    /**
     * Registers in the background (the worker holds its id now), until a coordinator
     * accepts.
     */
    public void start() {
        active = true;
        registerInBackground();
    }

    /**
     * Stops registering; the worker is no longer registered (it lost its id, or stops).
     */
    public void stop() {
        active = false;
        registered.set(false);
    }

    /**
     * @return {@code true} once a coordinator accepted the registration
     */
    public boolean isRegistered() {
        return registered.get();
    }

    /**
     * @return why a coordinator refused this worker for good, empty while it did not
     */
    public Optional<String> refusal() {
        return Optional.ofNullable(refusal);
    }

    /**
     * Registers again in the background (a coordinator asked: it no longer knows this
     * worker).
     */
    public void registerInBackground() {
        registered.set(false);
        if (registering.compareAndSet(false, true)) {
            DaemonThreads.named("varpulis-register-" + identity.workerId()).newThread(this::registrationLoop).start();
        }
    }

    private void registrationLoop() {
        BackOffExecution waits = Backoffs.start(how.backoff(), how.maxBackoff());
        Duration backoff = Duration.ofMillis(waits.nextBackOff());
        try {
            while (active && !registered.get()) {
                try {
                    Registration.Reply reply = register();
                    if (reply.error() == null) {
                        registered.set(true);
                        refusal = null;
                        log.info("worker {} registered with the coordinator (heartbeat every {} s)",
                                identity.workerId(), reply.heartbeatIntervalSecs());
                        heartbeats.publishNow();
                        return;
                    }
                    refused(reply);
                    if (reply.isFinal() && how.exitOnRefusal()) {
                        return;
                    }
                }
                catch (CancellationException e) {
                    // jnats cancels a request nobody is subscribed to (no responders).
                    log.warn("registration of worker {}: no coordinator listens on {} yet; retrying in {} ms",
                            identity.workerId(), Subjects.REGISTER, backoff.toMillis());
                }
                catch (Exception e) {
                    log.warn("registration of worker {} failed ({}); retrying in {} ms", identity.workerId(),
                            e.toString(), backoff.toMillis());
                }
                Thread.sleep(backoff.toMillis());
                backoff = Duration.ofMillis(waits.nextBackOff());
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        finally {
            registering.set(false);
            // A register command that arrived while this loop was finishing found it
            // busy: honour it now.
            if (active && !registered.get() && refusal == null) {
                registerInBackground();
            }
        }
    }

    private void refused(Registration.Reply reply) {
        String reason = "the coordinator refused worker " + identity.workerId() + ": " + reply.error();
        if (!reply.isFinal()) {
            log.error("{}; retrying", reason);
            return;
        }
        refusal = reason;
        if (how.exitOnRefusal()) {
            log.error("{}; retrying cannot help, so the node exits with status 78 (set "
                    + "varpulis.cluster.exit-on-refusal=false to keep it running, unready)", reason);
            onFinalRefusal.accept(reason);
        }
        else {
            log.error("{}; this worker stays unready and retries until its settings or the coordinator's change",
                    reason);
        }
    }

    private Registration.Reply register() throws Exception {
        // api_key is always there, empty without one: a Rust coordinator refuses a
        // registration without the field.
        Registration.Request request = new Registration.Request(identity.workerId(), identity.address(),
                how.apiKey() == null ? "" : how.apiKey(),
                new Registration.Capacity(Runtime.getRuntime().availableProcessors(), host.status().size(),
                        how.maxPipelines()),
                identity.substrate(), settings.clusterName(), WorkerCapabilities.of(host.processorTypes()));
        Message reply = requests.request(Subjects.REGISTER, request, settings.commandTimeout())
            .get(settings.commandTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
        if (reply.isStatusMessage()) {
            throw new IllegalStateException("no coordinator of cluster " + settings.clusterName() + " answered on "
                    + Subjects.REGISTER + " (" + reply.getStatus() + ")");
        }
        return requests.mapper().readValue(reply.getData(), Registration.Reply.class);
    }

}
