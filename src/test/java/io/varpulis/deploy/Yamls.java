package io.varpulis.deploy;

import org.yaml.snakeyaml.Yaml;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Parsing and walking YAML documents (Helm output, docker-compose.yml) as plain maps and
 * lists.
 */
final class Yamls {

    private Yamls() {
    }

    /** Every non-empty document of a multi-document stream, in order. */
    static List<Map<String, Object>> parseAll(String yaml) {
        List<Map<String, Object>> documents = new ArrayList<>();
        for (Object document : new Yaml().loadAll(yaml)) {
            if (document != null) {
                documents.add(asMap(document, "document"));
            }
        }
        return documents;
    }

    static Map<String, Object> parse(String yaml) {
        return asMap(new Yaml().load(yaml), "document");
    }

    /**
     * The node at {@code path} under {@code root}: a String steps into a map, an Integer
     * into a list.
     * @throws AssertionError naming the path walked so far when a step is missing
     */
    static Object at(Object root, Object... path) {
        Object node = root;
        StringBuilder walked = new StringBuilder();
        for (Object step : path) {
            walked.append('/').append(step);
            if (step instanceof Integer index) {
                List<?> list = asList(node, walked.toString());
                if (index >= list.size()) {
                    throw new AssertionError("no element " + walked + " (list has " + list.size() + ")");
                }
                node = list.get(index);
            }
            else {
                Map<String, Object> map = asMap(node, walked.toString());
                if (!map.containsKey(step)) {
                    throw new AssertionError("no key " + walked + " (keys: " + map.keySet() + ")");
                }
                node = map.get(step);
            }
        }
        return node;
    }

    static Map<String, Object> mapAt(Object root, Object... path) {
        return asMap(at(root, path), String.valueOf(List.of(path)));
    }

    static List<Object> listAt(Object root, Object... path) {
        return asList(at(root, path), String.valueOf(List.of(path)));
    }

    static String stringAt(Object root, Object... path) {
        return Objects.toString(at(root, path), null);
    }

    /**
     * The element of a list of maps whose {@code name} is {@code name} (env vars,
     * volumes, ports).
     */
    static Map<String, Object> named(List<Object> list, String name) {
        return list.stream()
            .map(element -> asMap(element, "list element"))
            .filter(element -> name.equals(element.get("name")))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no element named " + name + " in " + list));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> asMap(Object node, String where) {
        if (!(node instanceof Map)) {
            throw new AssertionError(where + " is not a mapping: " + node);
        }
        return (Map<String, Object>) node;
    }

    @SuppressWarnings("unchecked")
    static List<Object> asList(Object node, String where) {
        if (!(node instanceof List)) {
            throw new AssertionError(where + " is not a list: " + node);
        }
        return (List<Object>) node;
    }

}
