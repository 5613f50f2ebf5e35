package io.varpulis.cluster.coordinator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nats.client.Message;
import io.varpulis.cluster.node.CoreRequests;
import io.varpulis.cluster.protocol.Commands;
import io.varpulis.nats.Subjects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The coordinator's command client (SPEC sections 6 and 9): core request/reply on
 * {@code varpulis.cluster.cmd.{worker}.{command}}, never JetStream, each reply read as
 * JSON within command-timeout. Only the leader sends commands, each carrying its fence
 * ({@value Commands#LEADER}, {@value Commands#LEADER_EPOCH}, {@value Commands#CLUSTER});
 * a follower may only ask a worker to register again, without an epoch.
 */
public class CoordinatorCommands {

    private static final Logger log = LoggerFactory.getLogger(CoordinatorCommands.class);

    private final CoordinatorSettings settings;

    private final CoreRequests requests;

    private final LeaderElection election;

    /**
     * @param settings the cluster's name and command-timeout
     * @param requests sends each command and reads its reply
     * @param election whether this coordinator leads, its id and epoch
     */
    public CoordinatorCommands(CoordinatorSettings settings, CoreRequests requests, LeaderElection election) {
        this.settings = settings;
        this.requests = requests;
        this.election = election;
    }

    /**
     * Sends a command with this leader's fence: {@code payload}'s JSON object plus
     * {@code "leader"}, {@code "leader_epoch"} and {@code "cluster"}.
     * @param workerId the worker
     * @param command {@link Commands#DEPLOY}, {@link Commands#UNDEPLOY}, ...
     * @param payload the command's body, written as a JSON object
     * @return the worker's JSON reply ({@code {"error": "..."}} for a refusal);
     * exceptionally with an {@link IllegalStateException} when this coordinator does not
     * lead or no worker answered, a {@link java.util.concurrent.TimeoutException} after
     * command-timeout, a {@link java.util.concurrent.CancellationException} when nobody
     * listens
     */
    public CompletableFuture<JsonNode> send(String workerId, String command, Object payload) {
        if (!election.isLeader()) {
            return CompletableFuture.failedFuture(new IllegalStateException(
                    "coordinator " + election.coordinatorId() + " does not lead cluster " + settings.clusterName()
                            + " (now: " + election.current().map(LeaderElection.Leader::leader).orElse(null) + ")"));
        }
        try {
            ObjectNode body = requests.mapper().valueToTree(payload);
            body.put(Commands.LEADER, election.coordinatorId());
            body.put(Commands.LEADER_EPOCH, election.epoch());
            body.put(Commands.CLUSTER, settings.clusterName());
            return requests.request(Subjects.command(workerId, command), body, settings.commandTimeout())
                .thenApply(this::readReply);
        }
        catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Asks a worker this coordinator does not know to register again. The leader's ask is
     * a fenced {@value Commands#REGISTER} command; a follower's, its way to learn of the
     * workers that registered before it started (warm followers, SPEC section 9), carries
     * the cluster and no leader epoch ({@code register} is not fenced, and a follower
     * never speaks for the leader). The worker's registration is answered as any other.
     * @param workerId the worker
     * @return the worker's JSON reply, or exceptionally as {@link #send}
     */
    public CompletableFuture<JsonNode> askToRegister(String workerId) {
        if (election.isLeader()) {
            return send(workerId, Commands.REGISTER, Map.of());
        }
        try {
            return requests
                .request(Subjects.command(workerId, Commands.REGISTER),
                        Map.of(Commands.CLUSTER, settings.clusterName(), "asked_by", election.coordinatorId()),
                        settings.commandTimeout())
                .thenApply(this::readReply);
        }
        catch (Exception e) {
            log.debug("worker {} not asked to register: {}", workerId, e.toString());
            return CompletableFuture.failedFuture(e);
        }
    }

    private JsonNode readReply(Message reply) {
        if (reply.isStatusMessage()) {
            throw new IllegalStateException("no worker answered (" + reply.getStatus() + ")");
        }
        try {
            return requests.mapper().readTree(reply.getData());
        }
        catch (Exception e) {
            throw new IllegalStateException("unreadable reply: " + new String(reply.getData(), StandardCharsets.UTF_8),
                    e);
        }
    }

}
