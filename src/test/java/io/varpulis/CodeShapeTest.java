package io.varpulis;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaConstructor;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shape issue 35 asks of production code: no constructor with more than 7 parameters
 * (group them in a record of parts or settings), no logger named after another class (an
 * operator greps a class's name and finds what that class did), and no class over 400
 * lines without a sentence at its top saying why (one that says it is
 * "{@value #WHY_LONG}" and why).
 */
class CodeShapeTest {

    static final String WHY_LONG = "longer than most";

    private static final int MAX_LINES = 400;

    private static final int MAX_CONSTRUCTOR_PARAMETERS = 7;

    private static final Path MAIN_SOURCES = Path.of("src/main/java");

    private static final Pattern CLASS_LOGGER = Pattern.compile("LoggerFactory\\.getLogger\\((\\w+)\\.class\\)");

    private static final JavaClasses MAIN = new ClassFileImporter().importPath(Path.of("target/classes"));

    @Test
    void noConstructorTakesMoreThanSevenParameters() {
        List<String> wide = MAIN.stream()
            .flatMap(type -> type.getConstructors().stream())
            // The compiler's own: a record's canonical constructor is its components; an
            // inner class's has
            // its outer instance; an enum's, its name and ordinal.
            .filter(constructor -> !constructor.getOwner().isRecord() && !constructor.getOwner().isEnum())
            .filter(constructor -> constructor.getRawParameterTypes().size() > MAX_CONSTRUCTOR_PARAMETERS)
            .map(JavaConstructor::getFullName)
            .toList();
        assertThat(wide).as("constructors with more than %d parameters", MAX_CONSTRUCTOR_PARAMETERS).isEmpty();
    }

    @Test
    void everyLoggerIsNamedAfterItsOwnClass() throws IOException {
        List<String> borrowed = sources().flatMap(file -> {
            String name = file.getFileName().toString().replace(".java", "");
            Matcher logger = CLASS_LOGGER.matcher(read(file));
            Stream.Builder<String> found = Stream.builder();
            while (logger.find()) {
                if (!logger.group(1).equals(name)) {
                    found.add(file + " logs as " + logger.group(1));
                }
            }
            return found.build();
        }).toList();
        assertThat(borrowed).isEmpty();
    }

    @Test
    void aClassOverFourHundredLinesSaysWhyAtItsTop() throws IOException {
        List<String> unexplained = sources().filter(file -> read(file).lines().count() > MAX_LINES).filter(file -> {
            String text = read(file);
            int top = text.toLowerCase(Locale.ROOT).indexOf(WHY_LONG);
            int declaration = Math.max(text.indexOf("\npublic "), text.indexOf("\nrecord "));
            return top < 0 || declaration >= 0 && top > declaration;
        }).map(file -> file + " (" + read(file).lines().count() + " lines)").toList();
        assertThat(unexplained).as("classes over %d lines without '%s' in their top comment", MAX_LINES, WHY_LONG)
            .isEmpty();
    }

    private static Stream<Path> sources() throws IOException {
        try (Stream<Path> files = Files.walk(MAIN_SOURCES)) {
            return files.filter(file -> file.toString().endsWith(".java")).toList().stream();
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        }
        catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

}
