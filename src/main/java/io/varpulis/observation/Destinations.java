package io.varpulis.observation;

import io.varpulis.jetstream.DurableNames;
import io.varpulis.nats.Subjects;

/**
 * The low-cardinality {@code messaging.destination.name} of a subject: the cluster's
 * subjects as templates, whose tokens are group, pipeline and worker names, so that a
 * meter never gets one series per id. Pure.
 */
public final class Destinations {

    /** The template of every route edge's subject, partitioned or not. */
    public static final String ROUTE = Subjects.PIPELINE_ROOT + ".{group}.{from}.{to}";

    /** The template of every DLQ subject. */
    public static final String DLQ = DurableNames.DLQ_ROOT + ".{unit}";

    /** The template of every command subject. */
    public static final String COMMAND = Subjects.COMMAND_ROOT + ".{worker}.{command}";

    /** The template of every stored reply subject (SPEC section 19). */
    public static final String REPLY = Subjects.REPLY_ROOT + ".{requester}.{request}";

    /**
     * The template of what follows an inbox prefix ({@code _INBOX}, or a service's own
     * {@code _INBOX_{role}_{id}}): a core request's reply subject.
     */
    public static final String INBOX = "{inbox}";

    private static final String INBOX_PREFIX = "_INBOX";

    private Destinations() {
    }

    /**
     * @param subject a published or consumed subject (a filter subject may hold
     * wildcards)
     * @return its template for a cluster subject, a stored reply's ({@value #REPLY}) and
     * a core reply's ({@code {inbox prefix}.{inbox}}, the requester's inbox); any other
     * subject (a service's own, chosen by its author) as it is
     */
    public static String of(String subject) {
        if (route(subject)) {
            return ROUTE;
        }
        if (subject.startsWith(DurableNames.DLQ_ROOT + ".")) {
            return DLQ;
        }
        if (subject.startsWith(Subjects.COMMAND_ROOT + ".")) {
            return COMMAND;
        }
        if (subject.startsWith(Subjects.REPLY_ROOT + ".")) {
            return REPLY;
        }
        if (subject.startsWith(INBOX_PREFIX)) {
            int end = subject.indexOf('.');
            return end < 0 ? subject : subject.substring(0, end + 1) + INBOX;
        }
        return subject;
    }

    /**
     * @param subject a published or consumed subject
     * @return {@code true} for a route edge's
     * ({@code varpulis.cluster.pipeline.{group}.{from}.{to}[.{partition}]})
     */
    public static boolean route(String subject) {
        return subject.startsWith(Subjects.PIPELINE_ROOT + ".");
    }

    /**
     * @param subject a published or consumed subject
     * @return {@code true} for a route edge into the cluster
     * ({@code {group}._external.{to}}): outside producers publish there too (a service
     * that injects, a log feeder, a Rust node), not only the cluster's own injects
     */
    public static boolean entry(String subject) {
        if (!route(subject)) {
            return false;
        }
        int group = subject.indexOf('.', Subjects.PIPELINE_ROOT.length() + 1);
        return group > 0 && subject.startsWith(Subjects.EXTERNAL + ".", group + 1);
    }

    /**
     * @param subject a published or consumed subject
     * @return {@code true} for a route edge between two pipelines: only the cluster's
     * nodes publish there, each output having decided its trace's sampling (issue 32)
     */
    public static boolean internalRoute(String subject) {
        return route(subject) && !entry(subject);
    }

    /**
     * @param subject a subject
     * @return {@code true} for what is never observed: heartbeats (noise) and pipeline
     * state writes ({@code $KV.})
     */
    public static boolean unobserved(String subject) {
        return subject.startsWith(Subjects.HEARTBEAT_ROOT + ".") || subject.startsWith("$KV.");
    }

}
