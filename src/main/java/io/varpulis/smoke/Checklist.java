package io.varpulis.smoke;

import java.io.PrintStream;

/**
 * The smoke test's output: one line per check ({@code ok} or {@code FAIL}), a closing
 * line, and the exit status.
 */
final class Checklist {

    private final PrintStream out;

    private int failures;

    Checklist(PrintStream out) {
        this.out = out;
    }

    void pass(String format, Object... args) {
        out.println("  ok    " + String.format(format, args));
    }

    void fail(String format, Object... args) {
        failures++;
        out.println("  FAIL  " + String.format(format, args));
    }

    /**
     * @param passed the closing line when every check passed
     * @param failed what to do when some failed (after "N check(s) failed: ")
     * @return 0 when every check passed, 1 otherwise
     */
    int summary(String passed, String failed) {
        out.println(failures == 0 ? passed : failures + " check(s) failed: " + failed);
        return failures == 0 ? 0 : 1;
    }

}
