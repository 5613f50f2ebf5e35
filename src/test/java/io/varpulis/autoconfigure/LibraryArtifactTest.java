package io.varpulis.autoconfigure;

import io.varpulis.test.LibraryBoundary;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The built jars agree with the one declaration of the library boundary (issues 35 and
 * 44): the node's packages, excluded by package from the library jar in {@code pom.xml}
 * and read from there by {@link LibraryBoundary}. The library jar holds every other class
 * of the build, its imports file names exactly the auto-configurations it holds, it
 * carries no node imports file; the node jar's own imports file names exactly the node's
 * auto-configurations. Run after {@code package}: {@code ./mvnw verify} runs it in the
 * {@code integration-test} phase (a missing jar fails it, never skips it).
 */
class LibraryArtifactTest {

    static final String LIBRARY_IMPORTS = "META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports";

    static final String NODE_IMPORTS = "META-INF/spring/io.varpulis.autoconfigure.node.ImportNodeAutoConfiguration.imports";

    @Test
    void theLibraryJarHoldsEveryClassButTheNodesPackagesAndItsImportsNameOnlyItsOwnClasses() throws IOException {
        List<String> nodePackages = LibraryBoundary.nodeClassPrefixes();
        Set<String> built = classesOf(Path.of("target/classes"));
        try (JarFile library = new JarFile(jar("target/lib", "varpulis-cluster-", ".jar").toFile())) {
            Set<String> held = classes(library, "");
            assertThat(held).as("classes of the library jar")
                .isEqualTo(built.stream()
                    .filter(name -> nodePackages.stream().noneMatch(name::startsWith))
                    .collect(TreeSet::new, Set::add, Set::addAll));
            List<String> imports = imports(library, LIBRARY_IMPORTS);
            assertThat(imports).as("%s names a class the library jar lacks", LIBRARY_IMPORTS).allMatch(held::contains);
            assertThat(imports).as("every auto-configuration of the library jar is listed")
                .containsExactlyInAnyOrderElementsOf(autoConfigurations(held));
            assertThat(library.getEntry(NODE_IMPORTS)).as("the node's imports file in the library jar").isNull();
        }
    }

    @Test
    void theNodeJarsImportsNameExactlyTheNodesAutoConfigurations() throws IOException {
        List<String> nodePackages = LibraryBoundary.nodeClassPrefixes();
        try (JarFile node = new JarFile(jar("target/exec", "varpulis-cluster-", "-exec.jar").toFile())) {
            Set<String> held = classes(node, "BOOT-INF/classes/");
            // Spring Boot's repackaging keeps META-INF at the jar's root.
            List<String> imports = imports(node, NODE_IMPORTS);
            assertThat(imports).as("%s names a class the node jar lacks", NODE_IMPORTS)
                .allMatch(held::contains)
                .allMatch(name -> nodePackages.stream().anyMatch(name::startsWith), "in a node package");
            assertThat(imports).containsExactlyInAnyOrderElementsOf(autoConfigurations(held).stream()
                .filter(name -> nodePackages.stream().anyMatch(name::startsWith))
                .toList());
        }
    }

    private static Path jar(String directory, String prefix, String suffix) throws IOException {
        assertThat(Path.of(directory)).as("%s: build the jars first (./mvnw package)", directory).isDirectory();
        try (Stream<Path> files = Files.list(Path.of(directory))) {
            List<Path> jars = files
                .filter(file -> file.getFileName().toString().startsWith(prefix)
                        && file.getFileName().toString().endsWith(suffix))
                .toList();
            assertThat(jars).as("jars in %s", directory).hasSize(1);
            return jars.get(0);
        }
    }

    private static Set<String> classes(JarFile jar, String root) {
        Set<String> classes = new TreeSet<>();
        jar.stream()
            .map(JarEntry::getName)
            .filter(name -> name.startsWith(root + "io/varpulis/") && name.endsWith(".class"))
            .forEach(name -> classes.add(className(name.substring(root.length()))));
        return classes;
    }

    private static Set<String> classesOf(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root.resolve("io/varpulis"))) {
            return files.filter(file -> file.toString().endsWith(".class"))
                .map(file -> className(root.relativize(file).toString()))
                .collect(TreeSet::new, Set::add, Set::addAll);
        }
    }

    private static String className(String path) {
        return path.substring(0, path.length() - ".class".length()).replace('/', '.');
    }

    /**
     * The {@code @AutoConfiguration} classes among {@code classes} (loaded from the
     * build's own classes).
     */
    private static List<String> autoConfigurations(Set<String> classes) {
        return classes.stream()
            .filter(name -> !name.contains("$") && load(name).isAnnotationPresent(AutoConfiguration.class))
            .toList();
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name, false, LibraryArtifactTest.class.getClassLoader());
        }
        catch (ClassNotFoundException e) {
            throw new AssertionError(name + " is in a jar but not in the build's classes", e);
        }
    }

    private static List<String> imports(JarFile jar, String entry) throws IOException {
        JarEntry found = jar.getJarEntry(entry);
        assertThat(found).as("%s in %s", entry, jar.getName()).isNotNull();
        try (InputStream in = jar.getInputStream(found)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                .map(String::trim)
                .filter(line -> !line.isEmpty() && !line.startsWith("#"))
                .toList();
        }
    }

}
