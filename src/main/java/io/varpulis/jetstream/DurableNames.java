package io.varpulis.jetstream;

import java.nio.charset.StandardCharsets;

/**
 * The names ADR-007 derives for durable consumers and dead-letter subjects (SPEC section
 * 4). Pure functions, stable across versions: a name that changed under an upgrade would
 * orphan the old consumer and its unacked backlog.
 */
public final class DurableNames {

    /**
     * Longest durable name we generate; longer ones are truncated with a hash suffix
     * (ADR-007).
     */
    public static final int MAX_LENGTH = 96;

    /**
     * Root of the dead-letter subjects, a sibling of {@code varpulis.cluster.>} so
     * hot-path limits never evict it.
     */
    public static final String DLQ_ROOT = "varpulis.dlq";

    /** 79 kept characters + {@code _} + 16 hex digits = {@link #MAX_LENGTH}. */
    private static final int KEPT_ON_TRUNCATION = MAX_LENGTH - 17;

    private static final long FNV_OFFSET_BASIS = 0xcbf29ce484222325L;

    private static final long FNV_PRIME = 0x100000001b3L;

    private DurableNames() {
    }

    /**
     * The durable consumer of one pipeline on one route edge:
     * {@code route_{pipeline}__{subject}}, sanitised; when longer than 96 characters, its
     * first 79 characters, {@code _}, and the FNV-1a hash of the raw name in 16 hex
     * digits. Unique per (pipeline, subject), so two pipelines on one subject each get
     * every event.
     * @param pipeline the consuming pipeline's name
     * @param subject the route edge's subject (the consumer's filter_subject)
     * @return the durable name, at most 96 characters of {@code [A-Za-z0-9_-]}
     */
    public static String routeConsumer(String pipeline, String subject) {
        String raw = "route_" + pipeline + "__" + subject;
        String clean = sanitize(raw);
        if (clean.length() <= MAX_LENGTH) {
            return clean;
        }
        return clean.substring(0, KEPT_ON_TRUNCATION) + "_" + fnv1a64Hex(raw);
    }

    /**
     * The coordinator's heartbeat consumer: {@code hb_{sanitised coordinator id}}, or
     * {@code hb_} + the FNV-1a hash of the raw id in 16 hex digits when that is longer
     * than 96 characters. Keyed by coordinator so that two coordinators each see every
     * heartbeat (a shared durable would split them).
     * @param coordinatorId the coordinator's stable id ({@code VARPULIS_COORDINATOR_ID})
     * @return the durable name
     */
    public static String heartbeatConsumer(String coordinatorId) {
        String name = "hb_" + sanitize(coordinatorId);
        return name.length() <= MAX_LENGTH ? name : "hb_" + fnv1a64Hex(coordinatorId);
    }

    /**
     * The subject a unit's parked events go to: {@code varpulis.dlq.{sanitised unit}}.
     * @param unit the pipeline name, or {@code coordinator:{id}} for heartbeats
     * @return the DLQ subject
     */
    public static String dlqSubject(String unit) {
        return DLQ_ROOT + "." + sanitize(unit);
    }

    /**
     * Replaces every code point outside {@code [A-Za-z0-9_-]} with {@code _}.
     * @param text any text
     * @return the sanitised text, one character per code point of the input
     */
    public static String sanitize(String text) {
        StringBuilder out = new StringBuilder(text.length());
        text.codePoints().forEach(c -> out.append(isNameChar(c) ? (char) c : '_'));
        return out.toString();
    }

    /**
     * The 64-bit FNV-1a hash of the UTF-8 bytes of a text, as 16 lower-case hex digits.
     * @param text any text
     * @return the hash in hex
     */
    public static String fnv1a64Hex(String text) {
        return String.format("%016x", fnv1a64(text));
    }

    /**
     * The 64-bit FNV-1a hash of the UTF-8 bytes of a text (offset basis
     * {@code 0xcbf29ce484222325}, prime {@code 0x100000001b3}), as the Rust reference
     * computes it: durable names and partitions (SPEC sections 4 and 11) depend on it
     * never changing.
     * @param text any text
     * @return the hash, to be read as unsigned
     */
    public static long fnv1a64(String text) {
        long hash = FNV_OFFSET_BASIS;
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            hash ^= (b & 0xff);
            hash *= FNV_PRIME;
        }
        return hash;
    }

    private static boolean isNameChar(int c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    }

}
