package io.varpulis.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The chart's Grafana dashboard, {@code helm/varpulis/files/dashboard.json}: its panels'
 * queries.
 */
public final class Dashboard {

    /** The dashboard file the chart puts in its ConfigMap. */
    public static final Path FILE = Path.of("helm/varpulis/files/dashboard.json").toAbsolutePath();

    private Dashboard() {
    }

    /**
     * @param json the dashboard JSON
     * @return every query of every panel (rows aside), keyed
     * {@code "panel title / refId"}, in panel order
     */
    public static Map<String, String> queries(String json) throws IOException {
        Map<String, String> queries = new LinkedHashMap<>();
        for (JsonNode panel : new ObjectMapper().readTree(json).path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                queries.put(panel.path("title").asText() + " / " + target.path("refId").asText(),
                        target.path("expr").asText());
            }
        }
        return queries;
    }

    /**
     * @param query a panel's query
     * @param rateInterval what Grafana would put for {@code $__rate_interval} (e.g.
     * {@code 1m})
     * @return the query as Grafana sends it to Prometheus
     */
    public static String asSent(String query, String rateInterval) {
        return query.replace("$__rate_interval", rateInterval);
    }

}
