package io.varpulis.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

/**
 * A node's readiness answer polled every second ({@code GET /actuator/health/readiness},
 * which answers without credentials; the disk-full scenario runs the nodes with
 * {@code show-details} and {@code show-components} set to {@code always} for that group,
 * so that the answer carries the {@code jetstream} and {@code nats} components), kept as
 * its changes: HTTP status, overall status, the {@code jetstream} component's status and
 * reason, the server the node's connection is on. Times are seconds from {@link #mark()}
 * (the fault), negative before it.
 */
final class HealthPoll implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Reasons are cut to this many characters in the notes. */
    private static final int REASON = 160;

    /** One answer: what changed is kept, with how many polls answered the same. */
    private record Answer(double seconds, String text) {
    }

    private final URI uri;

    private final String node;

    private final List<Answer> changes = new CopyOnWriteArrayList<>();

    private final Thread thread;

    private volatile long zero = System.nanoTime();

    private volatile boolean closed;

    private volatile long polls;

    private volatile long down;

    private volatile long unanswered;

    /**
     * @param node the node's name
     * @param port its HTTP port on 127.0.0.1
     */
    HealthPoll(String node, int port) {
        this.node = node;
        this.uri = URI.create("http://127.0.0.1:" + port + "/actuator/health/readiness");
        this.thread = new Thread(this::poll, "health-poll-" + node);
        thread.setDaemon(true);
        thread.start();
    }

    /** Times from now on are counted from here (the fault). */
    void mark() {
        zero = System.nanoTime();
    }

    private void poll() {
        String last = null;
        while (!closed) {
            long asked = System.nanoTime();
            String text = answer();
            polls++;
            down += text.contains("jetstream DOWN") ? 1 : 0;
            unanswered += text.startsWith("no answer") ? 1 : 0;
            if (!text.equals(last)) {
                changes.add(new Answer((asked - zero) / 1e9, text));
                last = text;
            }
            try {
                Thread.sleep(Math.max(0, 1000 - (System.nanoTime() - asked) / 1_000_000));
            }
            catch (InterruptedException e) {
                return;
            }
        }
    }

    private String answer() {
        try {
            HttpResponse<String> response = HTTP.send(
                    HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.ofString());
            JsonNode health = JSON.readTree(response.body());
            JsonNode jetStream = health.path("components").path("jetstream");
            String reason = jetStream.path("details")
                .path("reason")
                .asText(jetStream.path("details").path("problem").asText(""));
            return response.statusCode() + " " + health.path("status").asText("?") + ", jetstream "
                    + jetStream.path("status").asText("(absent)")
                    + (reason.isEmpty() ? "" : " '" + reason.substring(0, Math.min(REASON, reason.length())) + "'")
                    + ", nats on "
                    + health.path("components").path("nats").path("details").path("serverName").asText("?");
        }
        catch (IOException e) {
            return "no answer (" + e.getClass().getSimpleName() + ")";
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    /**
     * @return the answers as they changed, for the notes
     */
    String note() {
        return node + "'s readiness polled " + polls + " times (jetstream DOWN in " + down + ", no answer in "
                + unanswered + "): "
                + changes.stream()
                    .map(a -> String.format(Locale.ROOT, "%+.1f s %s", a.seconds(), a.text()))
                    .collect(Collectors.joining(" -> "));
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        thread.interrupt();
        thread.join(5000);
    }

}
