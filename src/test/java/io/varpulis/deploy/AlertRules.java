package io.varpulis.deploy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.varpulis.deploy.Yamls.asMap;
import static io.varpulis.deploy.Yamls.listAt;

/**
 * The chart's alert rules ({@code helm/varpulis/files/alerts.yaml}, a Prometheus rule
 * file) and their sections in docs/OPERATING.md ("## Alerts": one {@code ### AlertName}
 * heading per alert, with the alert's expression in a {@code promql} block).
 */
final class AlertRules {

    /** The rule file, the one source of the chart's PrometheusRule. */
    static final Path FILE = Path.of("helm/varpulis/files/alerts.yaml").toAbsolutePath();

    static final Path OPERATING = Path.of("docs/OPERATING.md").toAbsolutePath();

    private static final Pattern SECTION = Pattern.compile("^### (\\S+)\\n(.*?)```promql\\n(.*?)\\n```",
            Pattern.MULTILINE | Pattern.DOTALL);

    private AlertRules() {
    }

    /**
     * @return every alerting rule of the file, by alert name, in file order
     */
    static Map<String, Map<String, Object>> inFile() throws IOException {
        return byName(listAt(Yamls.parse(Files.readString(FILE)), "groups"));
    }

    /**
     * @return the alerting rules of a rule file's (or a PrometheusRule's spec's)
     * {@code groups}, by alert name
     */
    static Map<String, Map<String, Object>> byName(List<Object> groups) {
        Map<String, Map<String, Object>> rules = new LinkedHashMap<>();
        for (Object group : groups) {
            for (Object rule : listAt(group, "rules")) {
                Map<String, Object> alert = asMap(rule, "rule");
                rules.put((String) alert.get("alert"), alert);
            }
        }
        return rules;
    }

    /**
     * @return the expression of each {@code ### Name} section under "## Alerts" of
     * OPERATING.md, by heading
     */
    static Map<String, String> documented() throws IOException {
        String text = Files.readString(OPERATING);
        int start = text.indexOf("\n## Alerts\n");
        int end = text.indexOf("\n## ", start + 1);
        Matcher section = SECTION.matcher(text.substring(start, end));
        Map<String, String> expressions = new LinkedHashMap<>();
        while (section.find()) {
            expressions.put(section.group(1), section.group(3));
        }
        return expressions;
    }

    /** The anchor GitHub gives a heading that is one word: its lower case. */
    static String anchor(String alert) {
        return alert.toLowerCase(java.util.Locale.ROOT);
    }

    /** An expression with its line breaks and indentation folded into single spaces. */
    static String normalized(String expression) {
        return expression.strip().replaceAll("\\s+", " ");
    }

}
