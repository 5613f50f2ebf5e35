package io.varpulis.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What a run's node logs say about issue 30's questions, by the words the nodes log (best
 * effort: the product's log lines may change): workers declared unhealthy or late, state
 * write chains mended, fence refusals, broker waits, state opens (each a placement of a
 * stateful pipeline), heartbeats not stored, leadership. The lines themselves go to
 * {@code <run>-facts.txt} beside the node logs, grouped, so that a reader finds the lines
 * around each fact.
 */
final class NodeLogFacts {

    /** Label to the text a line must hold, in the order they are reported. */
    static final Map<String, String> FACTS = facts();

    /** Lines kept per fact in the facts file. */
    private static final int KEPT = 200;

    private NodeLogFacts() {
    }

    private static Map<String, String> facts() {
        Map<String, String> facts = new LinkedHashMap<>();
        facts.put("unhealthy", "missed its heartbeats");
        facts.put("late but progressing", "sent no heartbeat for");
        facts.put("chain mended", "write chain mended");
        facts.put("chain repaired", "write chain repaired");
        facts.put("written meanwhile", "written meanwhile");
        facts.put("10158", "10158");
        facts.put("10071", "10071");
        facts.put("10070", "10070");
        facts.put("fenced", "stops consuming");
        facts.put("broker unavailable", "the broker is unavailable");
        facts.put("broker back", "tries waited for it");
        facts.put("state opened", "opened state bucket");
        facts.put("heartbeat not stored", "heartbeat of worker");
        facts.put("nak", "; nak'ed, redelivery in");
        facts.put("stalled", ": stalled: ");
        facts.put("adopted", "placement adopted");
        facts.put("copy undeployed", "undeploying it there");
        facts.put("leads", "leads cluster");
        facts.put("no longer leads", "no longer leads");
        facts.put("coordinator cut off", "cannot reach NATS or its heartbeat consumer");
        facts.put("connected", "NATS connected to");
        facts.put("disconnected", "isconnected");
        facts.put("leader reach", "reconnect");
        facts.put("out of resources", "resources");
        return facts;
    }

    /**
     * @param nodeLogs the run's node logs ({@code <run>-nodes})
     * @param factsFile where the lines go
     * @return fact label to lines found, only those found
     */
    static Map<String, Long> scan(Path nodeLogs, Path factsFile) throws IOException {
        Map<String, List<String>> lines = new LinkedHashMap<>();
        FACTS.keySet().forEach(label -> lines.put(label, new ArrayList<>()));
        Map<String, Long> warnings = new LinkedHashMap<>();
        if (Files.isDirectory(nodeLogs)) {
            try (Stream<Path> logs = Files.list(nodeLogs)) {
                for (Path log : logs.filter(p -> p.toString().endsWith(".log")).sorted().toList()) {
                    String node = log.getFileName().toString().replaceFirst("\\.log$", "");
                    long warn = 0;
                    for (String line : Files.readAllLines(log, StandardCharsets.ISO_8859_1)) {
                        warn += line.contains(" WARN ") || line.contains(" ERROR ") ? 1 : 0;
                        for (Map.Entry<String, String> fact : FACTS.entrySet()) {
                            if (line.contains(fact.getValue())) {
                                lines.get(fact.getKey()).add(node + ": " + line);
                            }
                        }
                    }
                    warnings.put(node, warn);
                }
            }
        }
        StringBuilder text = new StringBuilder("WARN/ERROR lines by node: " + warnings + "\n");
        Map<String, Long> counts = new LinkedHashMap<>();
        lines.forEach((label, found) -> {
            if (!found.isEmpty()) {
                counts.put(label, (long) found.size());
                text.append("\n== ")
                    .append(label)
                    .append(" (")
                    .append(found.size())
                    .append(" lines, '")
                    .append(FACTS.get(label))
                    .append("')\n");
                found.stream().limit(KEPT).forEach(l -> text.append(l).append('\n'));
            }
        });
        Files.writeString(factsFile, text, StandardCharsets.UTF_8);
        return counts;
    }

    /**
     * @return the counts as one note
     */
    static String note(Map<String, Long> counts, Path factsFile) {
        return "node logs: "
                + counts.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "))
                + " (lines in " + factsFile + ")";
    }

}
