package io.varpulis.smoke;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * One {@code smoke-test} run as the command line does it, its standard output captured.
 *
 * @param output what it printed
 * @param exitCode what it returned
 */
record SmokeRun(String output, int exitCode) {

    static SmokeRun of(String... args) {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            int exitCode = SmokeTest.run(args);
            return new SmokeRun(captured.toString(StandardCharsets.UTF_8), exitCode);
        }
        finally {
            System.setOut(original);
        }
    }
}
