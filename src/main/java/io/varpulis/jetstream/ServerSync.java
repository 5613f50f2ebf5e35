package io.varpulis.jetstream;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * When the nats-servers holding the product's streams write an acknowledged event to disk
 * (issue 43, SPEC section 21). With {@code jetstream { sync_interval: always }} a server
 * fsyncs every write before it acknowledges it; by default it syncs its store every 2
 * minutes (60 s before 2.10, which has no setting), so a power loss of every server at
 * once loses what the streams acknowledged in that time (Jepsen's analysis of NATS
 * 2.12.1).
 *
 * @param setting what the servers checked do
 * @param servers per server name, {@code always} or {@code every <interval>}, as the
 * server reported it
 * @param source where the answer comes from: {@code varz} (the servers' monitoring
 * endpoints), {@code version} (a server older than 2.10), or {@code none}
 * @param reason for {@link Setting#INTERVAL}, what is lost and what to do; for
 * {@link Setting#UNKNOWN}, why it is not known; empty for {@link Setting#ALWAYS}
 */
public record ServerSync(Setting setting, Map<String, String> servers, String source, String reason) {

    /** What the servers checked do with an acknowledged write. */
    public enum Setting {

        /** Every server checked syncs every write before acknowledging it. */
        ALWAYS,

        /**
         * A server syncs on an interval: acknowledged writes may be lost on power loss.
         */
        INTERVAL,

        /** No server told (the NATS protocol does not tell clients). */
        UNKNOWN

    }

    /**
     * @param setting what the servers do
     * @param servers per server, as reported
     * @param source where it comes from
     * @param reason what it means, or why it is not known
     */
    public ServerSync {
        servers = Map.copyOf(servers);
    }

    /**
     * @return the {@code sync} detail of the {@code jetstream} health component:
     * {@code setting} ({@code always}, {@code interval}, {@code unknown}),
     * {@code source}, {@code servers} when any told, and {@code warning} (interval) or
     * {@code note} (unknown); nothing more when every server syncs always
     */
    public Map<String, Object> details() {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("setting", setting.name().toLowerCase(java.util.Locale.ROOT));
        details.put("source", source);
        if (!servers.isEmpty()) {
            details.put("servers", new java.util.TreeMap<>(servers));
        }
        if (setting == Setting.INTERVAL) {
            details.put("warning", reason);
        }
        else if (setting == Setting.UNKNOWN) {
            details.put("note", reason);
        }
        return details;
    }

    /**
     * @return the value of the gauge {@code varpulis.jetstream.sync.always}: 1 when every
     * server checked syncs every write, 0 when one does not, -1 when not known
     */
    public int gauge() {
        return switch (setting) {
            case ALWAYS -> 1;
            case INTERVAL -> 0;
            case UNKNOWN -> -1;
        };
    }

}
