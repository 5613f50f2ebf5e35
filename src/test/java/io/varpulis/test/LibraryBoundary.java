package io.varpulis.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The library boundary as {@code pom.xml} declares it, once (issue 35, issue 44): the
 * {@code <exclude>}s of the library jar ({@code default-jar}) name the node's packages,
 * its main class and its resources. The tests read it from there, never from a copy.
 */
public final class LibraryBoundary {

    /**
     * An exclude: a folder ({@code io/varpulis/web/**}), or a name's start ({@code x*}).
     */
    private static final Pattern EXCLUDE = Pattern.compile("<exclude>([^<*]+)(/\\*\\*|\\*[^<]*)?</exclude>");

    private static final List<String> EXCLUDED = excluded();

    private LibraryBoundary() {
    }

    /**
     * @return the node's classes as class-name prefixes ({@code io.varpulis.web.},
     * {@code io.varpulis.VarpulisClusterApplication})
     */
    public static List<String> nodeClassPrefixes() {
        return EXCLUDED.stream()
            .filter(path -> path.startsWith("io/varpulis/"))
            .map(path -> path.replace('/', '.'))
            .toList();
    }

    /**
     * @param name a class name ({@code io.varpulis.web.Api}) or a resource path
     * ({@code META-INF/spring/...})
     * @return whether the library jar leaves it to the node
     */
    public static boolean isNode(String name) {
        return nodeClassPrefixes().stream().anyMatch(name::startsWith) || EXCLUDED.stream().anyMatch(name::startsWith);
    }

    /**
     * The pom's excludes of the library jar as prefixes of a path in the jar: a folder
     * keeps its trailing slash, a name pattern its part before the {@code *}.
     */
    private static List<String> excluded() {
        String pom;
        try {
            pom = Files.readString(Path.of("pom.xml"), StandardCharsets.UTF_8);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Matcher exclude = EXCLUDE.matcher(pom);
        List<String> prefixes = new ArrayList<>();
        while (exclude.find()) {
            prefixes.add(exclude.group(1) + ("/**".equals(exclude.group(2)) ? "/" : ""));
        }
        if (!prefixes.contains("io/varpulis/autoconfigure/node/")) {
            throw new IllegalStateException("pom.xml no longer excludes io/varpulis/autoconfigure/node/** from the "
                    + "library jar: the boundary is read from its <exclude>s, " + prefixes);
        }
        return List.copyOf(prefixes);
    }

}
