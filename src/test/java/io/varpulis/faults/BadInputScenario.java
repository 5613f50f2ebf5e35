package io.varpulis.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.Nats;
import io.nats.client.PublishOptions;
import io.varpulis.bench.NodeJvm;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.NatsServerExtension;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Scenario e: bad input published straight onto a routing subject by an outside publisher
 * (plain jnats, not the product), to a node started from the jar: a payload that is not
 * JSON, one that is not UTF-8, a binary one just under the server's max_payload, an event
 * whose type is 10 000 characters, and one valid event. The valid one is applied; each
 * bad one is parked with its reason and shown by the DLQ console whole (the one near
 * max_payload in the raw form); none is applied, lost, stranded or looped.
 */
final class BadInputScenario {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final RouteEdge EDGE = new RouteEdge("bad-input", "_external", "detect");

    private static final Pattern APPLIED = Pattern
        .compile("varpulis_events_applied_total\\{[^}]*pipeline=\"detect\"[^}]*} ([0-9.]+)");

    private static final Pattern STRANDED = Pattern.compile("varpulis_events_stranded_total\\{[^}]*} ([0-9.]+)");

    private final Path jar;

    private final Path out;

    BadInputScenario(Path jar, Path out) {
        this.jar = jar;
        this.out = out;
    }

    Row run(int run) throws Exception {
        try (NatsServerExtension nats = NatsServerExtension.jetStream()) {
            nats.start();
            try (NodeJvm node = NodeJvm.start(jar, "e-" + run + "-node", List.of(),
                    List.of("--varpulis.cluster.role=standalone", "--varpulis.cluster.coordinator-id=faults-e",
                            "--varpulis.cluster.worker-id=faults-e-w", "--varpulis.dlq.write-enabled=true"),
                    nats.url(), out); Connection publisher = Nats.connect(nats.url())) {
                node.awaitReady();
                node.http("/api/v1/cluster/pipeline-groups", "{\"name\": \"bad-input\", \"pipelines\": [{\"name\": "
                        + "\"detect\", \"processor\": {\"type\": \"passthrough\", \"settings\": {}}}], \"routes\": "
                        + "[{\"from_pipeline\": \"_external\", \"to_pipeline\": \"detect\", \"event_types\": "
                        + "[\"SshAuthFailure\"]}]}");
                awaitConsumer(publisher);
                Map<String, byte[]> inputs = inputs(publisher.getMaxPayload());
                JetStream js = publisher.jetStream();
                for (Map.Entry<String, byte[]> input : inputs.entrySet()) {
                    js.publish(EDGE.subject(), input.getValue(),
                            PublishOptions.builder().messageId("bad-" + run + "-" + input.getKey()).build());
                }
                long deadline = System.nanoTime() + 60_000_000_000L;
                JsonNode page = null;
                while (System.nanoTime() < deadline) {
                    page = JSON.readTree(node.http("/api/v1/cluster/dlq?unit=detect&limit=50", null));
                    if (page.path("depth").asLong() >= inputs.size() - 1 && applied(node) >= 1) {
                        break;
                    }
                    Thread.sleep(250);
                }
                Thread.sleep(3000);
                return row(run, node, page, inputs);
            }
        }
    }

    private Row row(int run, NodeJvm node, JsonNode page, Map<String, byte[]> inputs) throws Exception {
        List<String> problems = new ArrayList<>();
        Map<String, String> reasons = new LinkedHashMap<>();
        for (JsonNode event : page.path("events")) {
            JsonNode whole = JSON.readTree(node.http("/api/v1/cluster/dlq/" + event.path("sequence").asLong(), null));
            String id = whole.path("envelope").path("message_id").asText();
            String key = id.substring(id.lastIndexOf('-') + 1);
            reasons.put(key, whole.path("envelope").path("reason").asText() + "/" + whole.path("form").asText());
            byte[] original = inputs.get(key);
            if (original != null && whole.path("payload_bytes").asLong() != original.length) {
                problems
                    .add(key + " shown with " + whole.path("payload_bytes") + " bytes, published " + original.length);
            }
        }
        Map<String, String> expected = Map.of("notjson", "undecodable/json", "notutf8", "undecodable/json", "nearmax",
                "undecodable/headers", "longtype", "unroutable/json");
        expected.forEach((key, reason) -> {
            if (!reason.equals(reasons.get(key))) {
                problems.add(key + " parked as " + reasons.get(key) + ", expected " + reason);
            }
        });
        double applied = applied(node);
        double stranded = metric(node, STRANDED);
        if (applied != 1) {
            problems.add(applied + " applied, expected the valid event only");
        }
        if (stranded != 0) {
            problems.add(stranded + " stranded");
        }
        long parked = page.path("depth").asLong();
        return new Row("e", run, problems.isEmpty() && parked == expected.size(), inputs.size(), (long) applied,
                "0 / " + parked + " bad", 0, -1, 0, Row.Twice.NONE, "-",
                problems.isEmpty() ? "parked as " + reasons : String.join("; ", problems));
    }

    private static Map<String, byte[]> inputs(long maxPayload) {
        byte[] nearMax = new byte[(int) maxPayload - 512];
        new Random(11).nextBytes(nearMax);
        nearMax[0] = (byte) 0xff;
        Map<String, byte[]> inputs = new LinkedHashMap<>();
        inputs.put("notjson", "this is not json".getBytes(StandardCharsets.UTF_8));
        inputs.put("notutf8", new byte[] { (byte) 0xc3, 0x28, (byte) 0xff, (byte) 0xfe, 0x41 });
        inputs.put("nearmax", nearMax);
        inputs.put("longtype",
                ("{\"event_type\": \"" + "X".repeat(10_000) + "\", \"fields\": {}}").getBytes(StandardCharsets.UTF_8));
        inputs.put("valid", "{\"event_type\": \"SshAuthFailure\", \"fields\": {\"src_ip\": \"10.0.0.9\"}}"
            .getBytes(StandardCharsets.UTF_8));
        return inputs;
    }

    private static void awaitConsumer(Connection connection) throws Exception {
        String durable = DurableNames.routeConsumer(EDGE.to(), EDGE.subject());
        for (int i = 0; i < 600; i++) {
            try {
                connection.jetStreamManagement().getConsumerInfo(VarpulisJetStream.ROUTING_STREAM, durable);
                return;
            }
            catch (Exception notYet) {
                Thread.sleep(100);
            }
        }
        throw new IllegalStateException("the node never started consuming " + EDGE.subject());
    }

    private static double applied(NodeJvm node) throws Exception {
        return metric(node, APPLIED);
    }

    private static double metric(NodeJvm node, Pattern pattern) throws Exception {
        Matcher matcher = pattern.matcher(node.http("/actuator/prometheus", null));
        double sum = 0;
        while (matcher.find()) {
            sum += Double.parseDouble(matcher.group(1));
        }
        return sum;
    }

}
