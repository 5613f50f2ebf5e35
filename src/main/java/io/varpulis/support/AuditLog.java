package io.varpulis.support;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collection;

/**
 * The one audit log of a node (SPEC section 10: every write is audited with the
 * principal): every write of the operator API and the dead-letter console, done or
 * refused, logs one line on the logger {@value #LOGGER}, so that operators can route
 * those lines apart. A line names the principal, its roles, where it came from, and what
 * it did.
 * <p>
 * What a caller sent (a principal's name, a path, an error quoting a value) is escaped: a
 * line break or any other control character is written as {@code \n}, {@code \r},
 * {@code \t} or a Java unicode escape of four hex digits (ESC as {@code \}{@code u001b}),
 * so a caller can never write a line of its own into the audit log.
 */
public final class AuditLog {

    /** The logger of the audit lines. */
    public static final String LOGGER = "io.varpulis.audit";

    private static final Logger log = LoggerFactory.getLogger(LOGGER);

    /**
     * Whether this thread wrote a line since {@link #forgetLines()}: a request's refusal
     * is audited once.
     */
    private static final ThreadLocal<Boolean> WROTE = new ThreadLocal<>();

    private AuditLog() {
    }

    /**
     * @param principal the principal's name, or {@code null} when the caller was not
     * authenticated
     * @param roles its roles (without the {@code ROLE_} prefix); empty when unknown
     * @param address the remote address, or {@code null} when unknown
     * @return {@code alice [OPERATOR]} (a principal is named by itself), or
     * {@code anonymous@10.0.0.7} (else only the address says who it was)
     */
    public static String describe(String principal, Collection<String> roles, String address) {
        if (principal == null || principal.isBlank()) {
            return address == null ? "anonymous" : "anonymous@" + address;
        }
        return roles == null || roles.isEmpty() ? principal : principal + " " + roles;
    }

    /**
     * Logs a write that was done.
     * @param who {@link #describe} of the caller
     * @param what what it did, with its outcome
     * ({@code declared group ssh: 2 pipelines placed})
     */
    public static void done(String who, String what) {
        log.info("audit: {}: {}", escape(who), escape(what));
        WROTE.set(Boolean.TRUE);
    }

    /**
     * Logs a write that was refused.
     * @param who {@link #describe} of the caller
     * @param what what it asked for and why it was refused
     */
    public static void refused(String who, String what) {
        log.warn("audit: {}: refused: {}", escape(who), escape(what));
        WROTE.set(Boolean.TRUE);
    }

    /**
     * Forgets the lines this thread wrote, when a request starts and ends: a thread
     * serves one request at a time.
     */
    public static void forgetLines() {
        WROTE.remove();
    }

    /**
     * @return whether this thread wrote an audit line since {@link #forgetLines()}: for
     * the request it serves, a refusal without a line of its own is audited by the HTTP
     * layer
     */
    public static boolean wroteLine() {
        return WROTE.get() != null;
    }

    /**
     * @param text any text
     * @return the text with every control character (C0, DEL, C1) and the Unicode line
     * and paragraph separators written as an escape, and backslashes doubled, so that it
     * stays on one line and reads back unambiguously
     */
    static String escape(String text) {
        if (text == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
                        out.append(String.format("\\u%04x", (int) c));
                    }
                    else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }

}
