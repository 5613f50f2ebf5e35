package io.varpulis.cluster.coordinator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The other Varpulis clusters found in this coordinator's NATS account (SPEC section 9:
 * one cluster per account): their registrations and heartbeats, which this coordinator
 * leaves unanswered and unapplied, their leader leases and their stored groups. Each is
 * said once at WARN, with what to do; the health details list them all.
 */
public class OtherClusters {

    private static final Logger log = LoggerFactory.getLogger(OtherClusters.class);

    private final String clusterName;

    private final LeaderElection election;

    private final GroupStore groups;

    /**
     * Other clusters seen in registrations and heartbeats, by name: what showed each
     * first.
     */
    private final Map<String, String> noticed = new ConcurrentHashMap<>();

    /**
     * @param clusterName this coordinator's cluster
     * @param election the leader leases of every cluster in the account
     * @param groups the groups every cluster of the account stored
     */
    public OtherClusters(String clusterName, LeaderElection election, GroupStore groups) {
        this.clusterName = clusterName;
        this.election = election;
        this.groups = groups;
    }

    /**
     * Records another cluster seen on the wire; warns the first time, unless its leader
     * lease said so already.
     * @param other the other cluster's name
     * @param what what showed it, in words ({@code "heartbeats of worker w1"})
     */
    public void noticed(String other, String what) {
        if (noticed.putIfAbsent(other, what) == null && !election.otherClusters().containsKey(other)) {
            log.warn(
                    "this NATS account carries another Varpulis cluster, {} (seen: {}); coordinator {} serves {} "
                            + "and leaves it alone: give each cluster its own NATS account",
                    other, what, election.coordinatorId(), clusterName);
        }
    }

    /**
     * @param other another cluster's name
     * @return whether it has a live leader now (its lease in the leader bucket)
     */
    public boolean hasLiveLeader(String other) {
        return election.otherClusters().containsKey(other);
    }

    /**
     * @return the other clusters found in this NATS account (leader leases, stored
     * groups, registrations and heartbeats), by name, with what showed them; {@code ""}
     * names groups stored without a cluster (older versions)
     */
    public Map<String, String> found() {
        Map<String, String> found = new TreeMap<>(noticed);
        election.otherClusters().forEach((name, leader) -> found.putIfAbsent(name, "leader " + leader.leader()));
        groups.otherClusters().forEach((name, names) -> found.merge(name, "groups " + names, (a, b) -> a + ", " + b));
        return found;
    }

}
