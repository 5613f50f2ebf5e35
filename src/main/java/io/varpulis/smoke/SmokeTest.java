package io.varpulis.smoke;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.MessageInfo;
import io.varpulis.autoconfigure.NatsConnectionProperties;
import io.varpulis.autoconfigure.PropertiesNatsConnectionDetails;
import io.varpulis.cluster.node.NodeIdentity;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.StreamDeclaration;
import io.varpulis.nats.NatsConnectionEvents;
import io.varpulis.nats.NatsConnectionFactory;
import io.varpulis.nats.Subjects;
import io.varpulis.nats.Substrate;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.ClusterTransports;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishReceipt;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.env.SimpleCommandLinePropertySource;
import org.springframework.core.env.StandardEnvironment;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * {@code java -jar varpulis-cluster.jar smoke-test [--varpulis.nats.url=...] [--varpulis.nats.credentials=...]}:
 * checks, with the node's own NATS settings (arguments and {@code VARPULIS_NATS_*}
 * environment variables), that a node could run on the jetstream substrate. It connects
 * (authentication, TLS), checks that JetStream is on, finds or creates the three ADR-007
 * streams, publishes one event to a routing subject, reads it back, and deletes it again.
 * It prints one line per check, what it found and what is missing, and exits 0 only when
 * every check passed. {@code smoke-test --role worker|coordinator} checks instead that
 * the user has exactly that role's NATS permissions ({@link NatsPermissions},
 * {@link RoleSmokeTest}).
 */
public final class SmokeTest {

    /**
     * The route edge the smoke test publishes on: group {@code _smoke}, never a real
     * pipeline's.
     */
    static final String SUBJECT = Subjects.route("_smoke", Subjects.EXTERNAL, "_smoke");

    private static final List<String> ROLES = List.of("worker", "coordinator");

    private static final String USAGE = "Usage: java -jar varpulis-cluster.jar smoke-test [--role worker|coordinator] "
            + "[--varpulis.cluster.worker-id=ID] [--varpulis.cluster.coordinator-id=ID] [--varpulis.nats.url=URL] [--varpulis.nats.credentials=FILE] "
            + "[--varpulis.nats.tls.ca-file=FILE] ... (or the VARPULIS_NATS_* environment variables): without "
            + "--role, checks the server and credentials for the jetstream substrate, creating the three streams "
            + "when absent; with --role, checks that the user has exactly the NATS permissions of that role";

    private final NatsSettings nats;

    private final NatsConnectionProperties properties;

    private final PrintStream out;

    private final Checklist checks;

    private SmokeTest(NatsSettings nats, PrintStream out) {
        this.nats = nats;
        this.properties = nats.connection();
        this.out = out;
        this.checks = new Checklist(out);
    }

    /**
     * @param args Spring-style arguments ({@code --varpulis.nats.url=...})
     * @return 0 when every check passed, 1 otherwise
     */
    public static int run(String[] args) {
        List<String> springArgs = new ArrayList<>();
        String role = null;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--role") && i + 1 < args.length) {
                role = args[++i];
            }
            else if (arg.startsWith("--role=")) {
                role = arg.substring("--role=".length());
            }
            else if (arg.startsWith("--varpulis.nats.") || arg.startsWith("--varpulis.cluster.worker-id=")
                    || arg.startsWith("--varpulis.cluster.coordinator-id=")) {
                springArgs.add(arg);
            }
            else {
                System.out.println((arg.equals("--help") ? "" : "unknown argument '" + arg + "'. ") + USAGE);
                return arg.equals("--help") ? 0 : 2;
            }
        }
        if (role != null && !ROLES.contains(role)) {
            System.out.println("unknown role '" + role + "': give --role worker or --role coordinator. " + USAGE);
            return 2;
        }
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources()
            .addFirst(new SimpleCommandLinePropertySource(springArgs.toArray(String[]::new)));
        // SubstrateEditor, found beside Substrate, binds varpulis.nats.substrate.
        Binder binder = new Binder(ConfigurationPropertySources.get(environment));
        NatsSettings nats = NatsSettings.bind(binder);
        NatsConnectionProperties properties = nats.connection();
        if (role != null) {
            // ADR-007's variables, as the node reads them.
            String workerId = binder.bind("varpulis.cluster.worker-id", String.class)
                .orElseGet(() -> environment.getProperty("VARPULIS_WORKER_ID"));
            String coordinatorId = binder.bind("varpulis.cluster.coordinator-id", String.class)
                .orElseGet(() -> environment.getProperty("VARPULIS_COORDINATOR_ID"));
            try {
                String id = role.equals("worker") ? NodeIdentity.workerId(workerId)
                        : NodeIdentity.coordinatorId(coordinatorId, Substrate.JETSTREAM);
                if (properties.getInboxPrefix() == null) {
                    // The inbox the node connects with (varpulis.nats.inbox-prefix's
                    // default).
                    properties.setInboxPrefix(Subjects.inbox(role, id));
                }
                return new RoleSmokeTest(properties, nats.connectionSettings(), role, id, System.out).execute();
            }
            catch (InvalidConfigurationPropertyValueException e) {
                System.out.println(e.getMessage());
                return 2;
            }
        }
        return new SmokeTest(nats, System.out).execute();
    }

    private int execute() {
        out.printf("Varpulis smoke test against %s%n", properties.getUrl());
        NatsConnectionEvents events = new NatsConnectionEvents(properties.getReconnectWait());
        Connection connection;
        try {
            connection = NatsConnectionFactory.connect(
                    NatsConnectionFactory.options(new PropertiesNatsConnectionDetails(properties),
                            nats.connectionSettings(), "varpulis-smoke-test", events),
                    properties.getUrl(), properties.getStartupRetryTimeout(), events);
            pass("connected to %s (server %s %s; TLS %s, authentication %s)", connection.getConnectedUrl(),
                    connection.getServerInfo().getServerName(), connection.getServerInfo().getVersion(),
                    connection.getOptions().getSslContext() != null ? "on" : "off",
                    connection.getServerInfo().isAuthRequired() ? "accepted" : "not required by the server");
        }
        catch (RuntimeException e) {
            fail("cannot connect: %s", e.getMessage());
            return summary();
        }
        try (connection) {
            JetStreamAdmin admin = new JetStreamAdmin(connection, events);
            try {
                admin.verifyJetStream();
                pass("JetStream is enabled for this account");
            }
            catch (RuntimeException e) {
                fail("%s", e.getMessage());
                return summary();
            }
            for (StreamDeclaration stream : nats.streams().builtInStreams()) {
                checkStream(admin, stream);
            }
            checkRoundTrip(connection, admin);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted");
        }
        return summary();
    }

    private void checkStream(JetStreamAdmin admin, StreamDeclaration stream) {
        try {
            boolean existed = admin.streamInfo(stream.name()).isPresent();
            admin.declareStream(stream);
            var drift = admin.drift().get(stream.name());
            pass("stream %s %s%s", stream.name(), existed ? "found" : "created",
                    drift == null ? "" : " (differs from the ADR-007 settings: " + drift.describe() + ")");
        }
        catch (Exception e) {
            fail("stream %s is missing and cannot be created: %s", stream.name(), e.getMessage());
        }
    }

    private void checkRoundTrip(Connection connection, JetStreamAdmin admin) {
        try (ClusterTransport transport = ClusterTransports.create(connection, Substrate.JETSTREAM, admin,
                nats.publishing().toSettings(nats.consumer()))) {
            String body = "{\"event_type\":\"SmokeTest\",\"fields\":{\"id\":\"" + UUID.randomUUID() + "\"}}";
            PublishReceipt receipt = transport
                .publish(new OutboundMessage(SUBJECT, body.getBytes(StandardCharsets.UTF_8), null))
                .get(10, TimeUnit.SECONDS);
            pass("published to %s: stored in %s at sequence %d", SUBJECT, receipt.stream(), receipt.sequence());
            JetStreamManagement jsm = admin.management();
            MessageInfo stored = jsm.getMessage(receipt.stream(), receipt.sequence());
            if (body.equals(new String(stored.getData(), StandardCharsets.UTF_8))) {
                pass("read it back from %s", receipt.stream());
            }
            else {
                fail("read back different bytes from %s at sequence %d", receipt.stream(), receipt.sequence());
            }
            jsm.deleteMessage(receipt.stream(), receipt.sequence());
            pass("deleted the test event again");
        }
        catch (Exception e) {
            fail("publish / read back on %s failed: %s", SUBJECT, e.getMessage());
        }
    }

    private void pass(String format, Object... args) {
        checks.pass(format, args);
    }

    private void fail(String format, Object... args) {
        checks.fail(format, args);
    }

    private int summary() {
        return checks.summary("all checks passed: a node can run on the jetstream substrate here",
                "fix them before starting nodes on the jetstream substrate");
    }

}
