package io.varpulis.nats;

import java.util.Locale;

/**
 * Which NATS delivery substrate carries the cluster's event paths (routed events and
 * heartbeats), ADR-007.
 * <p>
 * {@link #CORE} is the default and byte-identical to the historical behaviour: same
 * subjects, same payloads, fire-and-forget. {@link #JETSTREAM} stores each event in a
 * stream and redelivers it until a durable consumer acks it. Commands, registration, raft
 * and checkpoints stay on core request/reply on both.
 */
public enum Substrate {

    /**
     * Core NATS pub/sub: no persistence, no redelivery; an event nobody is subscribed to
     * is lost.
     */
    CORE("core"),

    /**
     * JetStream: events are stored and redelivered until acked by a durable pull
     * consumer.
     */
    JETSTREAM("jetstream");

    /** The values {@link #parse(String)} accepts, for error messages. */
    public static final String ACCEPTED = "core (aliases pubsub, pub_sub) or jetstream (alias js)";

    private final String id;

    Substrate(String id) {
        this.id = id;
    }

    /**
     * Parses a substrate name as written in {@code varpulis.nats.substrate} or
     * {@code VARPULIS_NATS_SUBSTRATE}: case-insensitive and trimmed; {@code pubsub} and
     * {@code pub_sub} mean core, {@code js} means jetstream (ADR-007).
     * <p>
     * Never defaults: an operator who typed {@code jetstrem} asked for durability and
     * must not get fire-and-forget.
     * @param value the configured value
     * @return the substrate
     * @throws IllegalArgumentException when the value is null, empty or unknown; the
     * message names the value and the accepted ones
     */
    public static Substrate parse(String value) {
        String normalised = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
        return switch (normalised) {
            case "core", "pubsub", "pub_sub" -> CORE;
            case "jetstream", "js" -> JETSTREAM;
            default ->
                throw new IllegalArgumentException("unknown NATS substrate '" + value + "': expected " + ACCEPTED);
        };
    }

    /**
     * @return {@code true} when events are stored and redelivered until acked
     */
    public boolean isDurable() {
        return this == JETSTREAM;
    }

    /**
     * @return the canonical name, as {@link #parse(String)} accepts it ({@code core} or
     * {@code jetstream})
     */
    public String id() {
        return id;
    }

    @Override
    public String toString() {
        return id;
    }

}
