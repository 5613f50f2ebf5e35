package io.varpulis.smoke;

import io.nats.client.Connection;
import io.nats.client.Subscription;
import io.nats.client.impl.Headers;
import io.varpulis.autoconfigure.NatsConnectionProperties;
import io.varpulis.autoconfigure.PropertiesNatsConnectionDetails;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.ConnectionSettings;
import io.varpulis.nats.NatsConnectionEvents;
import io.varpulis.nats.NatsConnectionFactory;
import io.varpulis.nats.Subjects;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;

/**
 * {@code smoke-test --role worker|coordinator}: checks that this node's NATS user has
 * exactly what the role needs ({@link NatsPermissions}), as Stellar's smoke test checks
 * that its bootstrap user may only register and send heartbeats. Each check sends one
 * request, publish or subscription the role needs (it must not be refused) or must not
 * have (it must be refused), and reads the server's permission violations; nothing is
 * stored, created or deleted:
 * <ul>
 * <li>publishes on stream subjects carry {@code Nats-Expected-Stream} of a stream that
 * does not exist, so JetStream refuses to store them after the permission was
 * checked;</li>
 * <li>JetStream API requests name consumers and streams that do not exist
 * ({@code _smoke...}), or carry a body the server rejects;</li>
 * <li>what must be refused is probed on names that do not exist: if the user may do it,
 * nothing is harmed and the check fails naming the permission set to use.</li>
 * </ul>
 * It connects with the role's inbox prefix ({@code varpulis.nats.inbox-prefix}, by
 * default the node's {@code _INBOX_{role}_{id}}) and checks that the user may read that
 * inbox and no other.
 * <p>
 * A refusal is the server's {@code -ERR} for that subject, which the server sends before
 * it answers the flush's PING: the connection's last error is read once the flush
 * returned, so a check never races the error callback.
 */
final class RoleSmokeTest {

    private static final String ROUTING = VarpulisJetStream.ROUTING_STREAM;

    private static final String HEARTBEAT = VarpulisJetStream.HEARTBEAT_STREAM;

    private static final String DLQ = VarpulisJetStream.DLQ_STREAM;

    private static final String ABSENT = "_smoke_absent";

    private static final String SMOKE_SUBJECT = Subjects.route("_smoke", Subjects.EXTERNAL, "_smoke");

    private final NatsConnectionProperties properties;

    private final ConnectionSettings settings;

    private final String role;

    private final String id;

    private final NatsPermissions permissions;

    private final PrintStream out;

    private final Checklist checks;

    /**
     * @param properties the NATS settings, with the inbox prefix the node connects with
     * @param settings the connection's timeouts and inbox
     * @param role {@code worker} or {@code coordinator}
     * @param id the worker id or the coordinator id
     * @param out where the checks are printed
     */
    RoleSmokeTest(NatsConnectionProperties properties, ConnectionSettings settings, String role, String id,
            PrintStream out) {
        this.properties = properties;
        this.settings = settings;
        this.role = role;
        this.id = id;
        this.permissions = role.equals("worker") ? NatsPermissions.worker(id) : NatsPermissions.coordinator(id);
        this.out = out;
        this.checks = new Checklist(out);
    }

    /**
     * @return 0 when every check passed, 1 otherwise
     */
    int execute() {
        out.printf("Varpulis smoke test of the %s permissions against %s%n", role, properties.getUrl());
        NatsConnectionEvents events = new NatsConnectionEvents(properties.getReconnectWait());
        Connection connection;
        try {
            connection = NatsConnectionFactory.connect(
                    NatsConnectionFactory.options(new PropertiesNatsConnectionDetails(properties), settings,
                            "varpulis-smoke-test-" + role, events),
                    properties.getUrl(), properties.getStartupRetryTimeout(), events);
            pass("connected to %s as the %s's user", connection.getConnectedUrl(), role);
        }
        catch (RuntimeException e) {
            fail("cannot connect: %s", e.getMessage());
            return summary();
        }
        try (connection) {
            for (Check check : role.equals("worker") ? workerChecks() : coordinatorChecks()) {
                run(connection, check);
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted");
        }
        return summary();
    }

    /**
     * Its own inbox, and no other: the jnats default every connection used to share,
     * another node's.
     */
    private List<Check> inboxChecks() {
        return List.of(Check.subscribes("receive replies in its own inbox", permissions.inboxPrefix() + ".>", true),
                Check.subscribes("read every connection's replies", "_INBOX.>", false),
                Check.subscribes("read another node's replies", Subjects.inbox(role, ABSENT) + ".>", false));
    }

    private List<Check> workerChecks() {
        List<Check> probes = new ArrayList<>(inboxChecks());
        probes.addAll(List.of(Check.needs("ask JetStream for the account", "$JS.API.INFO", ""),
                Check.needs("read stream " + ROUTING, "$JS.API.STREAM.INFO." + ROUTING, ""),
                Check.needs("register with the coordinator", Subjects.REGISTER, "{\"worker_id\": \"smoke test\"}"),
                Check.subscribes("receive its own commands", Subjects.COMMAND_ROOT + "." + id + ".*", true),
                Check.stores("publish its heartbeat", Subjects.heartbeat(id)),
                Check.stores("publish routed events", SMOKE_SUBJECT),
                Check.stores("park events", "varpulis.dlq._smoke"),
                Check.needs("create a route consumer",
                        "$JS.API.CONSUMER.CREATE." + ROUTING + "." + ABSENT + "." + SMOKE_SUBJECT,
                        "{\"stream_name\": \"" + ROUTING + "\", \"config\": {}}"),
                Check.needs("read a route consumer", "$JS.API.CONSUMER.INFO." + ROUTING + "." + ABSENT, ""),
                Check.needs("fetch from a route consumer", "$JS.API.CONSUMER.MSG.NEXT." + ROUTING + "." + ABSENT,
                        "{\"batch\": 1, \"no_wait\": true}"),
                Check.needs("create a state bucket", "$JS.API.STREAM.CREATE.KV_varpulis_state" + ABSENT, "{}"),
                Check.needs("read pipeline state",
                        "$JS.API.DIRECT.GET.KV_varpulis_state" + ABSENT + ".$KV.varpulis_state" + ABSENT + ".k", ""),
                Check.stores("write pipeline state", "$KV.varpulis_state" + ABSENT + ".k")));
        probes.addAll(List.of(Check.refused("delete a stream", "$JS.API.STREAM.DELETE.VARPULIS" + ABSENT),
                Check.refused("purge a stream", "$JS.API.STREAM.PURGE.VARPULIS" + ABSENT),
                Check.refused("delete a consumer", "$JS.API.CONSUMER.DELETE." + ROUTING + "." + ABSENT),
                Check.subscribes("read another worker's commands", Subjects.COMMAND_ROOT + "." + ABSENT + ".*", false),
                Check.refusedStore("publish another worker's heartbeat", Subjects.heartbeat(ABSENT)),
                Check.refusedStore("write the coordinators' groups",
                        "$KV." + NatsPermissions.GROUPS_BUCKET + "." + ABSENT)));
        return probes;
    }

    private List<Check> coordinatorChecks() {
        List<Check> probes = new ArrayList<>(inboxChecks());
        probes.addAll(List.of(Check.needs("ask JetStream for the account", "$JS.API.INFO", ""),
                Check.needs("read stream " + ROUTING, "$JS.API.STREAM.INFO." + ROUTING, ""),
                Check.subscribes("receive registrations", Subjects.REGISTER, true),
                Check.needs("send commands", Subjects.command(ABSENT, "deploy"), "{}"),
                Check.stores("inject events", SMOKE_SUBJECT),
                Check.needs("create its heartbeat consumer",
                        "$JS.API.CONSUMER.CREATE." + HEARTBEAT + "." + ABSENT + "." + Subjects.HEARTBEAT_ROOT + ".>",
                        "{\"stream_name\": \"" + HEARTBEAT + "\", \"config\": {}}"),
                Check.needs("fetch heartbeats", "$JS.API.CONSUMER.MSG.NEXT." + HEARTBEAT + "." + ABSENT,
                        "{\"batch\": 1, \"no_wait\": true}"),
                Check.needs("read the groups bucket", "$JS.API.STREAM.INFO.KV_" + NatsPermissions.GROUPS_BUCKET, ""),
                Check.stores("write the groups bucket", "$KV." + NatsPermissions.GROUPS_BUCKET + "." + ABSENT),
                Check.needs("read parked events", "$JS.API.STREAM.MSG.GET." + DLQ, "{\"seq\": 0}"),
                Check.needs("delete a group's consumers", "$JS.API.CONSUMER.DELETE." + ROUTING + "." + ABSENT, ""),
                Check.needs("delete a group's state bucket", "$JS.API.STREAM.DELETE.KV_varpulis_state" + ABSENT, ""),
                Check.refused("update a stream", "$JS.API.STREAM.UPDATE.VARPULIS" + ABSENT),
                Check.subscribes("read the workers' commands", Subjects.COMMAND_ROOT + "." + ABSENT + ".*", false)));
        return probes;
    }

    private void run(Connection connection, Check check) throws InterruptedException {
        connection.clearLastError();
        Subscription subscription = null;
        try {
            if (check.subscribe()) {
                subscription = connection.subscribe(check.subject());
            }
            else {
                Headers headers = new Headers();
                if (check.guardStore()) {
                    // JetStream refuses to store it: the permission is checked, nothing
                    // is written.
                    headers.put("Nats-Expected-Stream", "VARPULIS" + ABSENT);
                }
                connection.publish(check.subject(), connection.createInbox(), headers,
                        check.body().getBytes(StandardCharsets.UTF_8));
            }
            connection.flush(Duration.ofSeconds(5));
        }
        catch (TimeoutException e) {
            fail("%s: the server did not answer a flush: %s", check.description(), e.getMessage());
            return;
        }
        finally {
            if (subscription != null) {
                subscription.unsubscribe();
            }
        }
        // Set by the connection's reader before it read the PONG the flush waited for.
        String error = connection.getLastError();
        boolean refused = error != null && error.contains("\"" + check.subject() + "\"");
        String what = (check.subscribe() ? "subscribe " : "publish ") + check.subject();
        if (check.allowed() && !refused) {
            pass("may %s (%s)", check.description(), what);
        }
        else if (check.allowed()) {
            fail("may not %s: grant %s (the %s permission set in docs/OPERATING.md)", check.description(), what, role);
        }
        else if (refused) {
            pass("may not %s (%s refused)", check.description(), what);
        }
        else {
            fail("may %s (%s), which a %s does not need: give this user the %s permission set in "
                    + "docs/OPERATING.md", check.description(), what, role, role);
        }
    }

    private void pass(String format, Object... args) {
        checks.pass(format, args);
    }

    private void fail(String format, Object... args) {
        checks.fail(format, args);
    }

    private int summary() {
        return checks.summary("all checks passed: this user has exactly what a " + role + " needs",
                "fix this user's permissions before starting the " + role);
    }

    /**
     * One probe.
     *
     * @param description what the role does with it
     * @param subject the subject published or subscribed to
     * @param body the published body
     * @param subscribe a subscription rather than a publish
     * @param guardStore whether the publish carries an expectation that keeps JetStream
     * from storing it
     * @param allowed whether the role needs it (else it must be refused)
     */
    private record Check(String description, String subject, String body, boolean subscribe, boolean guardStore,
            boolean allowed) {

        static Check needs(String description, String subject, String body) {
            return new Check(description, subject, body, false, false, true);
        }

        static Check stores(String description, String subject) {
            return new Check(description, subject, "{}", false, true, true);
        }

        static Check subscribes(String description, String subject, boolean allowed) {
            return new Check(description, subject, "", true, false, allowed);
        }

        static Check refused(String description, String subject) {
            return new Check(description, subject, "", false, false, false);
        }

        static Check refusedStore(String description, String subject) {
            return new Check(description, subject, "{}", false, true, false);
        }
    }

}
