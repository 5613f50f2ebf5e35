package io.varpulis.cluster.node;

import io.varpulis.nats.Subjects;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Default worker ids.
 */
public final class WorkerIds {

    private WorkerIds() {
    }

    /**
     * @return the host name's first label with characters outside {@code [A-Za-z0-9_-]}
     * replaced by {@code -}, or {@code worker} when the host has no name
     */
    static String fromHostName() {
        String label = hostName().split("\\.")[0].replaceAll("[^A-Za-z0-9_-]", "-");
        return Subjects.isToken(label) ? label : "worker";
    }

    /**
     * @return this host's name, or {@code $HOSTNAME}, or {@code worker} when it has none
     */
    public static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        }
        catch (UnknownHostException e) {
            return System.getenv().getOrDefault("HOSTNAME", "worker");
        }
    }

}
