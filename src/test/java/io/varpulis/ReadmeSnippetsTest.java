package io.varpulis;

import io.varpulis.autoconfigure.JetStreamConsumerProperties;
import io.varpulis.autoconfigure.NatsListenerProperties;
import io.varpulis.transport.ParkReason;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's "Using it as a library" cannot rot (issue 33): each of its code blocks
 * follows a {@code <!-- snippet: PATH -->} (a whole file) or
 * {@code <!-- snippet: PATH#TAG -->} (the lines between {@code // tag::TAG[]} and
 * {@code // end::TAG[]}, dedented) marker and is byte for byte that file of
 * src/it/stellar-control, which the build compiles against the installed library and runs
 * (maven-invoker-plugin). So a rename in the library breaks the sample's build, and a
 * change to the sample not copied here breaks this test. The section also shows every
 * file of the sample's main code, every park reason and the defaults a listener runs
 * with, as the library defines them.
 * <p>
 * {@code ./mvnw test -Dtest=ReadmeSnippetsTest -Dreadme.snippets.update=true} copies the
 * files into the README.
 */
class ReadmeSnippetsTest {

    private static final Path README = Path.of("README.md");

    private static final Path SAMPLE_MAIN = Path.of("src/it/stellar-control/src/main");

    private static final String SECTION = "## Using it as a library";

    private static final Pattern MARKER = Pattern.compile("<!-- snippet: ([^#\\s]+)(?:#(\\S+))? -->");

    /**
     * One marked code block: its marker's line, the fence lines, what it holds and what
     * it must hold.
     */
    private record Snippet(String source, int open, int close, String shown, String expected) {
    }

    @Test
    void everyCodeBlockOfTheLibrarySectionIsByteForByteTheSampleFileItNames() throws IOException {
        List<String> lines = readme();
        List<Snippet> snippets = snippets(lines);
        if (Boolean.getBoolean("readme.snippets.update")) {
            for (int i = snippets.size() - 1; i >= 0; i--) {
                Snippet s = snippets.get(i);
                lines.subList(s.open() + 1, s.close()).clear();
                lines.addAll(s.open() + 1, s.expected().lines().toList());
            }
            Files.writeString(README, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
            snippets = snippets(lines);
        }
        assertThat(snippets).isNotEmpty()
            .allSatisfy(s -> assertThat(s.shown())
                .as("README.md's block under <!-- snippet: %s --> differs from that file; copy it over, or run "
                        + "./mvnw test -Dtest=ReadmeSnippetsTest -Dreadme.snippets.update=true", s.source())
                .isEqualTo(s.expected()));
    }

    @Test
    void theLibrarySectionHasNoJavaOrYamlBlockThatIsNotASnippet() throws IOException {
        List<String> lines = readme();
        int[] bounds = section(lines);
        for (int i = bounds[0]; i < bounds[1]; i++) {
            String line = lines.get(i);
            if (line.equals("```java") || line.equals("```yaml")) {
                assertThat(lines.get(i - 1))
                    .as("README.md line %d: a %s block without a snippet marker", i + 1, line.substring(3))
                    .matches(MARKER);
            }
        }
    }

    @Test
    void theLibrarySectionShowsEveryFileOfTheSamplesMainCode() throws IOException {
        List<String> shown = snippets(readme()).stream().map(Snippet::source).toList();
        try (Stream<Path> files = Files.walk(SAMPLE_MAIN)) {
            assertThat(files.filter(Files::isRegularFile).map(Path::toString).toList()).isNotEmpty()
                .allSatisfy(file -> assertThat(shown).as("shown in README.md").contains(file));
        }
    }

    @Test
    void theLibrarySectionNamesEveryParkReasonAndTheDefaultsAListenerRunsWith() throws IOException {
        List<String> lines = readme();
        int[] bounds = section(lines);
        List<String> section = lines.subList(bounds[0], bounds[1]);
        for (ParkReason reason : ParkReason.values()) {
            assertThat(section).as("park reason %s", reason.tag())
                .anyMatch(l -> l.startsWith("| `" + reason.tag() + "` |"));
        }
        JetStreamConsumerProperties consumer = new JetStreamConsumerProperties();
        Map<String, String> defaults = new LinkedHashMap<>();
        defaults.put("varpulis.nats.jetstream.consumer.ack-wait", duration(consumer.getAckWait()));
        defaults.put("varpulis.nats.jetstream.consumer.max-deliver", Integer.toString(consumer.getMaxDeliver()));
        defaults.put("varpulis.nats.jetstream.consumer.backoff.delay",
                "fixed " + duration(consumer.getBackoff().getDelay()));
        defaults.put("varpulis.nats.jetstream.consumer.apply-timeout", duration(consumer.getApplyTimeout()));
        defaults.put("varpulis.nats.jetstream.consumer.max-ack-pending", Integer.toString(consumer.getMaxAckPending()));
        defaults.put("varpulis.nats.jetstream.consumer.batch-size", Integer.toString(consumer.getBatchSize()));
        defaults.put("varpulis.nats.jetstream.consumer.inactive-threshold", duration(consumer.getInactiveThreshold()));
        defaults.put("varpulis.nats.listener-drain-timeout",
                duration(new NatsListenerProperties().getListenerDrainTimeout()));
        defaults.forEach((property, value) -> assertThat(section).as("the defaults table's row of %s", property)
            .anyMatch(l -> l.startsWith("|") && l.contains("`" + property + "`") && l.contains("| " + value + " |")));
    }

    private static List<Snippet> snippets(List<String> lines) throws IOException {
        int[] bounds = section(lines);
        List<Snippet> found = new ArrayList<>();
        for (int i = bounds[0]; i < bounds[1]; i++) {
            Matcher marker = MARKER.matcher(lines.get(i));
            if (!marker.matches()) {
                continue;
            }
            int open = i + 1;
            assertThat(lines.get(open)).as("README.md line %d: a code fence after the snippet marker", open + 1)
                .startsWith("```")
                .hasSizeGreaterThan(3);
            int close = open + 1;
            while (!lines.get(close).equals("```")) {
                close++;
            }
            String shown = String.join("\n", lines.subList(open + 1, close)) + "\n";
            String source = marker.group(1);
            String expected = marker.group(2) == null ? Files.readString(Path.of(source), StandardCharsets.UTF_8)
                    : region(Path.of(source), marker.group(2));
            found.add(new Snippet(source, open, close, shown, expected));
            i = close;
        }
        return found;
    }

    private static String region(Path file, String tag) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        int start = lines.stream().map(String::strip).toList().indexOf("// tag::" + tag + "[]");
        int end = lines.stream().map(String::strip).toList().indexOf("// end::" + tag + "[]");
        assertThat(start).as("// tag::%s[] in %s", tag, file).isNotNegative();
        assertThat(end).as("// end::%s[] in %s", tag, file).isGreaterThan(start);
        List<String> body = lines.subList(start + 1, end);
        int indent = body.stream()
            .filter(l -> !l.isBlank())
            .mapToInt(l -> l.length() - l.stripLeading().length())
            .min()
            .orElse(0);
        StringBuilder text = new StringBuilder();
        body.forEach(l -> text.append(l.isBlank() ? "" : l.substring(indent)).append('\n'));
        return text.toString();
    }

    private static int[] section(List<String> lines) {
        int start = lines.indexOf(SECTION);
        assertThat(start).as("README.md has the section %s", SECTION).isNotNegative();
        int end = start + 1;
        while (end < lines.size() && !lines.get(end).startsWith("## ")) {
            end++;
        }
        return new int[] { start, end };
    }

    private static List<String> readme() throws IOException {
        return new ArrayList<>(Files.readAllLines(README, StandardCharsets.UTF_8));
    }

    /**
     * A duration as the README's table writes it, in Spring Boot's simple form: 30s, 2s,
     * 7d.
     */
    private static String duration(Duration d) {
        if (d.toDays() > 0 && d.equals(Duration.ofDays(d.toDays()))) {
            return d.toDays() + "d";
        }
        if (d.toMinutes() > 0 && d.equals(Duration.ofMinutes(d.toMinutes()))) {
            return d.toMinutes() + "m";
        }
        return d.equals(Duration.ofSeconds(d.toSeconds())) ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }

}
