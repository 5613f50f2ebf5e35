package io.varpulis.cluster.worker;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.cluster.protocol.WorkerHeartbeat;
import io.varpulis.delivery.PipelineHost;
import io.varpulis.nats.Subjects;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.OutboundMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.TaskScheduler;

import java.time.Instant;
import java.util.concurrent.ScheduledFuture;

/**
 * A worker's heartbeats (SPEC section 5): {@code {"events_processed",
 * "pipelines_running", "pipeline_metrics": [...]}} published on
 * {@code varpulis.cluster.heartbeat.{worker}} through the substrate every
 * heartbeat-interval, on a thread of their own ({@code varpulisHeartbeatScheduler}) that
 * nothing else uses: a slow write elsewhere (the id lease, a pipeline's state, behind a
 * slow disk) never delays a heartbeat (SPEC section 9: slow is not dead). A heartbeat the
 * stream did not store is said at WARN; the next one follows at its time.
 */
public class HeartbeatPublisher {

    private static final Logger log = LoggerFactory.getLogger(HeartbeatPublisher.class);

    private final String workerId;

    private final WorkerSettings settings;

    private final ClusterTransport transport;

    private final PipelineHost host;

    private final ObjectMapper mapper;

    private final TaskScheduler scheduler;

    private volatile boolean publishing;

    private ScheduledFuture<?> heartbeats;

    /**
     * @param workerId this worker's id (the subject's last token)
     * @param settings the cluster's name and heartbeat-interval
     * @param transport publishes the heartbeats through the substrate
     * @param host the pipelines the heartbeats report
     * @param mapper writes the heartbeat JSON
     * @param scheduler the heartbeats' own scheduler (one thread)
     */
    public HeartbeatPublisher(String workerId, WorkerSettings settings, ClusterTransport transport, PipelineHost host,
            ObjectMapper mapper, TaskScheduler scheduler) {
        this.workerId = workerId;
        this.settings = settings;
        this.transport = transport;
        this.host = host;
        this.mapper = mapper;
        this.scheduler = scheduler;
    }

    /**
     * Publishes a heartbeat every heartbeat-interval, the first one interval from now.
     */
    public synchronized void start() {
        publishing = true;
        heartbeats = scheduler.scheduleAtFixedRate(this::publish, Instant.now().plus(settings.heartbeatInterval()),
                settings.heartbeatInterval());
    }

    /** Publishes no more heartbeats. */
    public synchronized void stop() {
        publishing = false;
        if (heartbeats != null) {
            heartbeats.cancel(false);
            heartbeats = null;
        }
    }

    /**
     * Publishes a heartbeat now (this worker just registered), while heartbeats are
     * published.
     */
    public void publishNow() {
        scheduler.schedule(this::publish, Instant.now());
    }

    /**
     * @return the heartbeat this worker would publish now: after a pause of the process,
     * without the pipelines it found superseded (reading their state fences from the
     * server, in parallel, for half a heartbeat-interval at most, so that a slow server
     * never delays the heartbeat)
     */
    public WorkerHeartbeat current() {
        // After a pause, prove each pipeline is still this worker's before reporting it
        // (SPEC section 9).
        host.proveOwnership(settings.heartbeatInterval().dividedBy(2));
        var pipelines = host.status();
        return new WorkerHeartbeat(host.eventsProcessed(), pipelines.size(),
                pipelines.stream()
                    .map(p -> new WorkerHeartbeat.PipelineMetric(p.pipeline(), p.eventsIn(), p.eventsOut(), p.group(),
                            p.epoch(), p.partition()))
                    .toList(),
                settings.clusterName(), host.stateFailures());
    }

    private void publish() {
        if (!publishing) {
            return;
        }
        try {
            transport
                .publish(new OutboundMessage(Subjects.heartbeat(workerId), mapper.writeValueAsBytes(current()), null))
                .exceptionally(e -> {
                    log.warn("heartbeat of worker {} was not stored: {}", workerId, e.getMessage());
                    return null;
                });
        }
        catch (Exception e) {
            log.warn("heartbeat of worker {} failed: {}", workerId, e.toString());
        }
    }

}
