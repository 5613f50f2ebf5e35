package io.varpulis.deploy;

import java.util.List;
import java.util.Map;

/** The Kubernetes objects of one {@code helm template} output, found by kind and name. */
record RenderedManifests(List<Map<String, Object>> objects) {

    static RenderedManifests parse(String rendered) {
        return new RenderedManifests(Yamls.parseAll(rendered));
    }

    List<Map<String, Object>> ofKind(String kind) {
        return objects.stream().filter(object -> kind.equals(object.get("kind"))).toList();
    }

    Map<String, Object> get(String kind, String name) {
        return ofKind(kind).stream()
            .filter(object -> name.equals(Yamls.stringAt(object, "metadata", "name")))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no " + kind + " named " + name + "; rendered: " + names()));
    }

    boolean contains(String kind, String name) {
        return ofKind(kind).stream().anyMatch(object -> name.equals(Yamls.stringAt(object, "metadata", "name")));
    }

    /** The first (only) container of a workload's pod template. */
    static Map<String, Object> container(Map<String, Object> workload) {
        return Yamls.mapAt(workload, "spec", "template", "spec", "containers", 0);
    }

    /**
     * A container's environment variable entry ({@code name} plus {@code value} or
     * {@code valueFrom}).
     */
    static Map<String, Object> env(Map<String, Object> container, String name) {
        return Yamls.named(Yamls.listAt(container, "env"), name);
    }

    static boolean hasEnv(Map<String, Object> container, String name) {
        return Yamls.listAt(container, "env")
            .stream()
            .anyMatch(entry -> name.equals(Yamls.asMap(entry, "env").get("name")));
    }

    private List<String> names() {
        return objects.stream()
            .map(object -> object.get("kind") + "/" + Yamls.stringAt(object, "metadata", "name"))
            .toList();
    }
}
