package io.varpulis.nats;

import java.util.regex.Pattern;

/**
 * The cluster's NATS subjects (SPEC section 3, ADR-007). They are the same on both
 * substrates, so a JetStream stream captures what a core publisher emits during a
 * rollout.
 */
public final class Subjects {

    /**
     * Registration, core request/reply: a worker announces itself, the coordinator
     * replies.
     */
    public static final String REGISTER = "varpulis.cluster.register";

    /** Root of the heartbeat subjects, {@code varpulis.cluster.heartbeat.{worker}}. */
    public static final String HEARTBEAT_ROOT = "varpulis.cluster.heartbeat";

    /**
     * Root of the command subjects, {@code varpulis.cluster.cmd.{worker}.{command}}, core
     * request/reply.
     */
    public static final String COMMAND_ROOT = "varpulis.cluster.cmd";

    /**
     * Root of the routed event subjects,
     * {@code varpulis.cluster.pipeline.{group}.{from}.{to}}.
     */
    public static final String PIPELINE_ROOT = "varpulis.cluster.pipeline";

    /**
     * Reserved for raft, always core: a consensus log must not sit on a second replicated
     * log.
     */
    public static final String RAFT_ALL = "varpulis.cluster.raft.>";

    /**
     * Reserved for checkpoint barriers, always core: a redelivered barrier would corrupt
     * the protocol.
     */
    public static final String CHECKPOINT_ALL = "varpulis.cluster.checkpoint.>";

    /**
     * Root of the stored reply subjects, {@code varpulis.reply.{requester}.{request}}: a
     * {@code NatsTemplate} on jetstream names one in each request's
     * {@code Varpulis-Reply-To} header, and receives the reply from the stream that
     * captures it (SPEC section 19). The requester token is random per process, as an
     * inbox's.
     */
    public static final String REPLY_ROOT = "varpulis.reply";

    /**
     * The source name of events injected from outside the group (the {@code from} of an
     * entry route).
     */
    public static final String EXTERNAL = "_external";

    private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9_-]+");

    private Subjects() {
    }

    /**
     * @param group the pipeline group
     * @param from the emitting pipeline, or {@link #EXTERNAL}
     * @param to the receiving pipeline
     * @return {@code varpulis.cluster.pipeline.{group}.{from}.{to}}
     * @throws IllegalArgumentException when a name is not a NATS token
     */
    public static String route(String group, String from, String to) {
        return PIPELINE_ROOT + "." + token("group", group) + "." + token("pipeline", from) + "."
                + token("pipeline", to);
    }

    /**
     * @param subject a subject
     * @return whether it is a worker's heartbeat subject,
     * {@code varpulis.cluster.heartbeat.{worker}}
     */
    public static boolean isHeartbeat(String subject) {
        return subject.startsWith(HEARTBEAT_ROOT) && subject.length() > HEARTBEAT_ROOT.length()
                && subject.charAt(HEARTBEAT_ROOT.length()) == '.';
    }

    /**
     * @param workerId the worker's id
     * @return {@code varpulis.cluster.heartbeat.{worker}}
     */
    public static String heartbeat(String workerId) {
        return HEARTBEAT_ROOT + "." + token("worker id", workerId);
    }

    /**
     * @param workerId the worker's id
     * @param command deploy, undeploy, inject or drain
     * @return {@code varpulis.cluster.cmd.{worker}.{command}}
     */
    public static String command(String workerId, String command) {
        return COMMAND_ROOT + "." + token("worker id", workerId) + "." + command;
    }

    /**
     * The inbox prefix of one node or service (SPEC section 10): its replies, PubAcks and
     * fetched messages arrive on {@code _INBOX_{role}_{id}.{nuid}}, which its NATS user
     * alone may subscribe to ({@code _INBOX_{role}_{id}.>}).
     * @param role the role ({@code worker}, {@code coordinator}, {@code standalone},
     * {@code publisher})
     * @param id the node's id (worker id, coordinator id) or the publisher's name
     * @return {@code _INBOX_{role}_{id}}, one token
     * @throws IllegalArgumentException when the id is not a NATS token
     */
    public static String inbox(String role, String id) {
        return "_INBOX_" + token("role", role) + "_" + token(role + " id", id);
    }

    /**
     * Whether a name can stand as one subject token: letters, digits, {@code -} and
     * {@code _} (SPEC section 6).
     * @param name the name
     * @return {@code true} when it is a token
     */
    public static boolean isToken(String name) {
        return name != null && TOKEN.matcher(name).matches();
    }

    /**
     * Checks a name is a subject token.
     * @param what what the name names, for the message ("group", "pipeline", "worker id")
     * @param name the name
     * @return the name
     * @throws IllegalArgumentException naming the bad value and the allowed characters
     */
    public static String token(String what, String name) {
        if (!isToken(name)) {
            throw new IllegalArgumentException(what + " name '" + name + "' is not a NATS subject token: use only "
                    + "letters, digits, '-' and '_' (no dots, spaces, '*' or '>')");
        }
        return name;
    }

}
