package io.varpulis.smoke;

import io.varpulis.cluster.protocol.ControlPlaneBuckets;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.jetstream.eviction.KeyValueEvictionLedger;
import io.varpulis.nats.Subjects;
import io.varpulis.transport.GivenUpMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The least NATS permissions each role needs (SPEC section 10), as data: what
 * {@code docs/OPERATING.md} shows as nats-server configuration and {@code nsc} commands,
 * what the permission tests configure a real server with, and what
 * {@code smoke-test --role} checks. Every subject here is one a node was seen using on
 * nats-server 2.9.10 and 2.12.15 (the permission tests run each role's work with nothing
 * else allowed); its replies to requests it received go through {@code allow_responses}.
 * <ul>
 * <li>{@link #worker}: register, receive its own commands and reply, publish its own
 * heartbeat, routed events and parked events, consume route edges of
 * {@code VARPULIS_ROUTING} with durable pull consumers (create, info, fetch, ack), and
 * keep pipeline state in its {@code varpulis_state_*} buckets. It may not delete or purge
 * a stream, delete a consumer, read another worker's commands or write the coordinators'
 * buckets.</li>
 * <li>{@link #coordinator}: answer registrations, send commands, consume heartbeats
 * ({@code hb_*} on {@code VARPULIS_HEARTBEAT}), inject events, keep groups
 * ({@code varpulis_groups}) and the leader lease ({@code varpulis_leader}), read, replay
 * and purge the DLQ, watch every route edge and the DLQ for evictions (the bucket
 * {@code varpulis_evictions}, a short-lived consumer on {@code VARPULIS_ROUTING}), and on
 * {@code DELETE ...?purge=true} delete a group's consumers, purge its routed events and
 * delete its state buckets; never the three streams.</li>
 * <li>{@link #publisher}: inject events at {@code _external} entries and receive their
 * PubAcks; nothing else.</li>
 * </ul>
 * A standalone node needs both publish sets, the coordinator's denials (not the worker's,
 * which deny the coordinators' buckets), and subscribe on its inbox, registrations and
 * its own commands.
 * <p>
 * Each may subscribe to its own inbox only, {@code _INBOX_{role}_{id}.>}
 * ({@link Subjects#inbox}, the default {@code varpulis.nats.inbox-prefix} of a node):
 * replies to its requests, its PubAcks, what its pull consumers fetch and its key-value
 * reads arrive there, and no other user may read them.
 * <p>
 * NATS matches whole tokens, and a pipeline's state bucket is named
 * {@code varpulis_state_{group}_{pipeline}_{hash}}, one token: so a worker's stream
 * permissions name no stream at that place ({@code $JS.API.STREAM.INFO.*},
 * {@code $JS.API.STREAM.CREATE.*}); creating a stream cannot change or delete an existing
 * one, and the coordinators' buckets are denied by name.
 *
 * @param role {@code worker}, {@code coordinator} or {@code publisher}
 * @param inboxPrefix the connection's inbox prefix, {@code _INBOX_{role}_{id}}
 * @param publishAllow subjects it may publish to (JetStream API requests included)
 * @param publishDeny subjects it may not publish to although an allowed wildcard covers
 * them
 * @param subscribeAllow subjects it may subscribe to: its inbox first
 * @param allowResponses whether it may reply to requests it received (registrations,
 * commands), and only those
 */
public record NatsPermissions(String role, String inboxPrefix, List<String> publishAllow, List<String> publishDeny,
        List<String> subscribeAllow, boolean allowResponses) {

    /** The coordinators' group bucket. */
    public static final String GROUPS_BUCKET = ControlPlaneBuckets.GROUPS;

    /** The coordinators' leader lease bucket (issue 12). */
    public static final String LEADER_BUCKET = ControlPlaneBuckets.LEADER;

    private static final String ROUTING = VarpulisJetStream.ROUTING_STREAM;

    private static final String HEARTBEAT = VarpulisJetStream.HEARTBEAT_STREAM;

    private static final String DLQ = VarpulisJetStream.DLQ_STREAM;

    private static final List<String> STREAMS = List.of(ROUTING, HEARTBEAT, DLQ);

    private static final String MAX_DELIVERIES = GivenUpMessage.ADVISORY_ROOT;

    /**
     * The coordinators' last observations of the streams they watch for evictions (issue
     * 43).
     */
    public static final String EVICTIONS_BUCKET = KeyValueEvictionLedger.BUCKET;

    private static final List<String> COORDINATOR_BUCKETS = List.of(GROUPS_BUCKET, LEADER_BUCKET, EVICTIONS_BUCKET);

    /**
     * @param role the role
     * @param inboxPrefix the inbox prefix
     * @param publishAllow allowed publish subjects
     * @param publishDeny denied publish subjects
     * @param subscribeAllow allowed subscribe subjects
     * @param allowResponses whether replies to received requests are allowed
     */
    public NatsPermissions {
        publishAllow = List.copyOf(publishAllow);
        publishDeny = List.copyOf(publishDeny);
        subscribeAllow = List.copyOf(subscribeAllow);
    }

    /**
     * @param workerId the worker's id ({@code varpulis.cluster.worker-id}), a NATS token
     * @return what that worker needs, with the inbox {@code _INBOX_worker_{id}}
     */
    public static NatsPermissions worker(String workerId) {
        String inbox = Subjects.inbox("worker", workerId);
        // The server's max-deliveries advisories of its route consumers: a message given
        // up is parked from the stream.
        return new NatsPermissions("worker", inbox, workerPublish(workerId), workerDeny(), List.of(inbox + ".>",
                Subjects.COMMAND_ROOT + "." + workerId + ".*", MAX_DELIVERIES + "." + ROUTING + ".*"), true);
    }

    private static List<String> workerPublish(String workerId) {
        return List.of(Subjects.REGISTER, Subjects.heartbeat(workerId), Subjects.PIPELINE_ROOT + ".>", "varpulis.dlq.>",
                "$JS.API.INFO",
                // The three streams and the pipelines' state buckets: info, and create
                // when absent.
                "$JS.API.STREAM.INFO.*", "$JS.API.STREAM.CREATE.*",
                // Durable pull consumers of route edges: create
                // ({stream}.{durable}.{filter}, what jnats sends to
                // 2.9 and later alike), info, fetch, ack.
                "$JS.API.CONSUMER.CREATE." + ROUTING + ".*.>", "$JS.API.CONSUMER.INFO." + ROUTING + ".*",
                "$JS.API.CONSUMER.MSG.NEXT." + ROUTING + ".*", "$JS.ACK." + ROUTING + ".>",
                // Key-value reads: the worker lease by direct get, pipeline state from
                // the stream leader (message
                // get, never a replica's direct answer), and writes.
                "$JS.API.DIRECT.GET.*.>", "$JS.API.STREAM.MSG.GET.*", "$KV.>",
                // A state bucket's leader holding less than the writes it confirmed is
                // asked to step down (issue 41).
                "$JS.API.STREAM.LEADER.STEPDOWN.*");
    }

    private static List<String> workerDeny() {
        List<String> deny = new ArrayList<>();
        for (String bucket : COORDINATOR_BUCKETS) {
            deny.add("$KV." + bucket + ".>");
            deny.add("$JS.API.STREAM.CREATE.KV_" + bucket);
            deny.add("$JS.API.STREAM.MSG.GET.KV_" + bucket);
        }
        deny.add("$JS.API.STREAM.MSG.GET." + DLQ);
        return deny;
    }

    /**
     * @param coordinatorId the coordinator's id
     * ({@code varpulis.cluster.coordinator-id}), a NATS token
     * @return what that coordinator needs, with the inbox {@code _INBOX_coordinator_{id}}
     */
    public static NatsPermissions coordinator(String coordinatorId) {
        String inbox = Subjects.inbox("coordinator", coordinatorId);
        return new NatsPermissions("coordinator", inbox, coordinatorPublish(), coordinatorDeny(),
                List.of(inbox + ".>", Subjects.REGISTER, MAX_DELIVERIES + "." + HEARTBEAT + ".*"), true);
    }

    private static List<String> coordinatorPublish() {
        List<String> publish = new ArrayList<>(List.of(Subjects.COMMAND_ROOT + ".*.*", Subjects.PIPELINE_ROOT + ".>",
                "varpulis.dlq.>", "$JS.API.INFO", "$JS.API.STREAM.NAMES"));
        coordinatorStreams().forEach(stream -> {
            publish.add("$JS.API.STREAM.INFO." + stream);
            publish.add("$JS.API.STREAM.CREATE." + stream);
        });
        publish.addAll(List.of(
                // Its durable heartbeat consumer hb_{id}: create, info, fetch, ack, and a
                // heartbeat the server gave
                // up read from the stream to be parked.
                "$JS.API.CONSUMER.CREATE." + HEARTBEAT + ".*.>", "$JS.API.CONSUMER.INFO." + HEARTBEAT + ".*",
                "$JS.API.CONSUMER.MSG.NEXT." + HEARTBEAT + ".*", "$JS.ACK." + HEARTBEAT + ".>",
                "$JS.API.STREAM.MSG.GET." + HEARTBEAT,
                // A late worker's progress (LateWorkers): its route consumers' ack
                // floors, its worker-id lease.
                "$JS.API.CONSUMER.INFO." + ROUTING + ".*", "$JS.API.STREAM.INFO.KV_" + ControlPlaneBuckets.WORKER_IDS,
                "$JS.API.STREAM.MSG.GET.KV_" + ControlPlaneBuckets.WORKER_IDS,
                "$JS.API.DIRECT.GET.KV_" + ControlPlaneBuckets.WORKER_IDS + ".>",
                // Evictions (issue 43): a consumer counting a route edge's events from a
                // sequence on, created and deleted at once.
                "$JS.API.CONSUMER.CREATE." + ROUTING + ".*.>",
                // DELETE ...?purge=true: the group's consumers, routed events and state
                // buckets.
                "$JS.API.CONSUMER.DELETE." + ROUTING + ".*", "$JS.API.STREAM.PURGE." + ROUTING,
                "$JS.API.STREAM.DELETE.*",
                // The dead-letter console: read, delete one, purge a unit.
                "$JS.API.STREAM.MSG.GET." + DLQ, "$JS.API.STREAM.MSG.DELETE." + DLQ, "$JS.API.STREAM.PURGE." + DLQ));
        for (String bucket : COORDINATOR_BUCKETS) {
            String stream = "KV_" + bucket;
            // Read, write, list and watch a bucket (an ordered consumer, created and read
            // by name).
            publish.addAll(List.of("$KV." + bucket + ".>", "$JS.API.DIRECT.GET." + stream + ".>",
                    "$JS.API.CONSUMER.CREATE." + stream + ".>", "$JS.API.CONSUMER.INFO." + stream + ".*"));
        }
        return publish;
    }

    private static List<String> coordinatorDeny() {
        return coordinatorStreams().map(stream -> "$JS.API.STREAM.DELETE." + stream).toList();
    }

    /**
     * The three streams and the streams of the coordinators' buckets: never deleted by a
     * node.
     */
    private static Stream<String> coordinatorStreams() {
        return Stream.concat(STREAMS.stream(), COORDINATOR_BUCKETS.stream().map(bucket -> "KV_" + bucket));
    }

    /**
     * @param name the publishing service's name, a NATS token; it connects with the inbox
     * prefix {@code _INBOX_publisher_{name}} (jnats' {@code Options.Builder.inboxPrefix})
     * @return what a service that only injects events needs: publish at {@code _external}
     * entries, read its PubAcks
     */
    public static NatsPermissions publisher(String name) {
        String inbox = Subjects.inbox("publisher", name);
        return new NatsPermissions("publisher", inbox,
                List.of(Subjects.PIPELINE_ROOT + ".*." + Subjects.EXTERNAL + ".*"), List.of(), List.of(inbox + ".>"),
                false);
    }

    /**
     * @param user the user name
     * @param password its password (written as given: use a variable such as
     * {@code $WORKER_PASSWORD})
     * @return one entry of nats-server's {@code authorization { users = [...] }}
     */
    public String serverConfigUser(String user, String password) {
        StringBuilder out = new StringBuilder();
        out.append("{ user: \"").append(user).append("\", password: ").append(password).append(",\n");
        out.append("  permissions: {\n");
        out.append("    publish: {\n      allow: ").append(list(publishAllow, "      "));
        if (!publishDeny.isEmpty()) {
            out.append(",\n      deny: ").append(list(publishDeny, "      "));
        }
        out.append("\n    },\n    subscribe: { allow: ").append(list(subscribeAllow, "    ")).append(" }");
        if (allowResponses) {
            out.append(",\n    allow_responses: true");
        }
        out.append("\n  }\n}");
        return out.toString();
    }

    /**
     * @param account the account
     * @param user the user name
     * @return the {@code nsc add user} command giving a user exactly these permissions
     * (decentralised auth)
     */
    public String nscCommand(String account, String user) {
        StringBuilder out = new StringBuilder("nsc add user --account " + account + " --name " + user);
        out.append(" \\\n  --allow-pub '").append(String.join(",", publishAllow)).append("'");
        if (!publishDeny.isEmpty()) {
            out.append(" \\\n  --deny-pub '").append(String.join(",", publishDeny)).append("'");
        }
        out.append(" \\\n  --allow-sub '").append(String.join(",", subscribeAllow)).append("'");
        if (allowResponses) {
            out.append(" \\\n  --allow-pub-response=1");
        }
        return out.toString();
    }

    private static String list(List<String> subjects, String indent) {
        return subjects.stream()
            .map(s -> "\"" + s + "\"")
            .collect(Collectors.joining(",\n" + indent + "  ", "[\n" + indent + "  ", "\n" + indent + "]"));
    }
}
