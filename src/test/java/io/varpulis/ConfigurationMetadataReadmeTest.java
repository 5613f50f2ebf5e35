package io.varpulis;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's configuration table and the configuration metadata the build generates
 * agree (issue 35): every {@code varpulis.*} key the table names has metadata, and a
 * literal default the table gives is the metadata's. A row names its first key in full
 * and its siblings by their last segment ({@code `connect-timeout`,
 * `startup-retry-timeout`}), with its defaults in the same order.
 */
class ConfigurationMetadataReadmeTest {

    private static final Path METADATA = Path.of("target/classes/META-INF/spring-configuration-metadata.json");

    private static final Pattern CODE = Pattern.compile("`([^`]+)`");

    @Test
    void everyKeyOfTheReadmeTableHasMetadataAndItsDefault() throws IOException {
        Map<String, JsonNode> metadata = metadata();
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (String line : Files.readAllLines(Path.of("README.md"), StandardCharsets.UTF_8)) {
            if (!line.startsWith("| `varpulis.")) {
                continue;
            }
            String[] cells = line.substring(1).split("\\|");
            List<String> keys = keys(cells[0]);
            for (String key : keys) {
                // A map's entries (streams.<NAME>) are described by the map's own
                // metadata.
                String name = key.contains("<") ? key.substring(0, key.indexOf('<') - 1) : key;
                boolean known = metadata.containsKey(name);
                if (!known) {
                    problems.add(key + " is in the README but has no configuration metadata");
                }
            }
            List<String> defaults = defaults(cells[1].trim(), keys.size());
            for (int i = 0; i < defaults.size(); i++) {
                JsonNode property = metadata.get(keys.get(i));
                String documented = defaults.get(i);
                if (property == null || documented == null || documented.contains("{")) {
                    continue; // no default, or one computed at startup (the node's id, a
                              // temporary directory)
                }
                JsonNode declared = property.get("defaultValue");
                checked++;
                if (declared == null
                        || !declared.asText().toLowerCase(Locale.ROOT).equals(documented.toLowerCase(Locale.ROOT))) {
                    problems.add(keys.get(i) + ": the README says " + documented + ", the metadata "
                            + (declared == null ? "has no default" : declared.asText()));
                }
            }
        }
        assertThat(problems).isEmpty();
        assertThat(checked).as("defaults compared").isGreaterThan(40);
    }

    private static List<String> keys(String cell) {
        List<String> keys = new ArrayList<>();
        Matcher code = CODE.matcher(cell);
        while (code.find()) {
            String key = code.group(1).replace(".*", "");
            keys.add(keys.isEmpty() ? key : keys.get(0).substring(0, keys.get(0).lastIndexOf('.') + 1) + key);
        }
        return keys;
    }

    /**
     * The defaults of a row, one per key, {@code null} for {@code -}; empty when the cell
     * is prose.
     */
    private static List<String> defaults(String cell, int keys) {
        String[] parts = cell.split(", ");
        List<String> defaults = new ArrayList<>();
        for (String part : parts) {
            if (part.equals("-")) {
                defaults.add(null);
            }
            else if (part.matches("`[^`]+`")) {
                defaults.add(part.substring(1, part.length() - 1));
            }
            else {
                return List.of();
            }
        }
        return defaults.size() == keys ? defaults : List.of();
    }

    private static Map<String, JsonNode> metadata() throws IOException {
        assertThat(METADATA).as("the build's configuration metadata (compile first)").exists();
        Map<String, JsonNode> byName = new HashMap<>();
        new ObjectMapper().readTree(METADATA.toFile())
            .get("properties")
            .forEach(property -> byName.put(property.get("name").asText(), property));
        return byName;
    }

}
