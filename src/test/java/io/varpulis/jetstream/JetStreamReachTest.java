package io.varpulis.jetstream;

import io.nats.client.api.StreamInfo;
import io.nats.client.support.JsonParser;
import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@link JetStreamReach} reads in a stream's info and a failed request, without a
 * broker (the cluster cases run on real servers in {@code LeaderReachOnClusterTest}).
 */
class JetStreamReachTest {

    @Test
    void aStreamWithALeaderAndTheConnectedServerCurrentIsFine() throws Exception {
        assertThat(JetStreamReach.ofStream(info("\"leader\":\"n1\",\"replicas\":[{\"name\":\"n3\",\"current\":true}]"),
                "n3"))
            .isEmpty();
    }

    @Test
    void aStreamWithoutLeaderIsAProblemThatAnotherServerMaySolve() throws Exception {
        JetStreamReach.Problem problem = JetStreamReach.ofStream(info("\"replicas\":[{\"name\":\"n3\"}]"), "n3")
            .orElseThrow();
        assertThat(problem.leaderUnreachable()).isTrue();
        assertThat(problem.describe()).startsWith("stream S has no leader")
            .contains("(server n3)")
            .contains("start or reconnect the stopped nats-servers");
    }

    @Test
    void aStreamWithoutLeaderSeenFromTheMajorityIsAProblemNoReconnectSolves() throws Exception {
        JetStreamReach.Problem problem = JetStreamReach.ofStream(info("\"replicas\":[{\"name\":\"n3\"}]"), "n3")
            .orElseThrow()
            .seenFromTheMajority();
        assertThat(problem.leaderUnreachable()).as("an R1 stream whose server is gone: every server shows it")
            .isFalse();
        assertThat(problem.describe()).startsWith("stream S has no leader")
            .contains("meta leader answers")
            .contains("(server n3)")
            .contains("start the stopped nats-servers holding its replicas");
    }

    @Test
    void theConnectedServersOfflineReplicaIsAProblemThatSaysToFreeItsStore() throws Exception {
        JetStreamReach.Problem problem = JetStreamReach
            .ofStream(info("\"leader\":\"n1\",\"replicas\":"
                    + "[{\"name\":\"n2\",\"current\":true},{\"name\":\"n3\",\"offline\":true}]"), "n3")
            .orElseThrow();
        assertThat(problem.leaderUnreachable()).as("another server of the URL list may serve the node").isTrue();
        assertThat(problem.describe()).contains("replica of stream S is offline").contains("will be DISABLED");
        assertThat(JetStreamReach.ofStream(info("\"leader\":\"n1\",\"replicas\":[{\"name\":\"n2\",\"offline\":true},"
                + "{\"name\":\"n3\",\"current\":true}]"), "n3"))
            .as("another server's replica, the quorum kept: the cluster's business, not this node's")
            .isEmpty();
    }

    @Test
    void theConnectedServersReplicaNotHeardFromAndBehindIsItsJetStreamDisabled() throws Exception {
        // As issue 30's disk-full showed it to a client of the server whose JetStream was
        // disabled (nats-server
        // 2.12.15): its INFO still says JetStream is on; the leader last heard from its
        // replica 7 s ago, 7 behind.
        JetStreamReach.Problem problem = JetStreamReach
            .ofConnectedReplica(info("\"leader\":\"n2\",\"replicas\":"
                    + "[{\"name\":\"n1\",\"current\":true,\"active\":718000000},{\"name\":\"n3\",\"current\":false,"
                    + "\"active\":7426000000,\"lag\":7}]"), "n3")
            .orElseThrow();
        assertThat(problem.leaderUnreachable()).isTrue();
        assertThat(problem.describe())
            .startsWith("the connected server's replica of stream S has not been heard "
                    + "from by its leader n2 for 7 s and is 7 operation(s) behind")
            .contains("will be DISABLED");
        assertThat(JetStreamReach.ofConnectedReplica(info("\"leader\":\"n2\",\"replicas\":[{\"name\":\"n3\","
                + "\"current\":false,\"active\":1200000000,\"lag\":40}]"), "n3"))
            .as("a busy follower behind but heard from within a second")
            .isEmpty();
        assertThat(JetStreamReach.ofConnectedReplica(
                info("\"leader\":\"n3\",\"replicas\":[{\"name\":\"n1\"," + "\"current\":false,\"active\":9000000000}]"),
                "n3"))
            .as("another server's replica")
            .isEmpty();
    }

    @Test
    void aLeaderThatHasNotHeardFromAMajorityOfItsReplicasIsWithoutQuorum() throws Exception {
        // active is in nanoseconds: the leader last heard from n2 and n3 12 s ago (the
        // minority side of a partition).
        StreamInfo cutOff = info("\"leader\":\"n1\",\"replicas\":[{\"name\":\"n2\",\"current\":true,"
                + "\"active\":12000000000},{\"name\":\"n3\",\"current\":true,\"active\":12000000000}]");
        JetStreamReach.Problem problem = JetStreamReach.ofStream(cutOff, "n1").orElseThrow();
        assertThat(problem.leaderUnreachable()).isTrue();
        assertThat(problem.describe())
            .startsWith("stream S's leader n1 has heard from only 0 of its 2 replicas in " + "the last 10 s")
            .contains("(server n1)");
        assertThat(JetStreamReach.ofQuorum(cutOff, "n1", java.time.Duration.ofSeconds(15))).isEmpty();
    }

    @Test
    void aLeaderWithOneReplicaOfTwoRecentlyHeardHasQuorumAsHasOneWithAReplicaBehind() throws Exception {
        assertThat(
                JetStreamReach
                    .ofStream(
                            info("\"leader\":\"n1\",\"replicas\":[{\"name\":\"n2\","
                                    + "\"current\":false,\"active\":300000000},{\"name\":\"n3\",\"offline\":true}]"),
                            "n1"))
            .as("a replica behind under load is not current but heard from: quorum")
            .isEmpty();
    }

    @Test
    void aRequestWithoutAnswerIsAProblemThatAnotherServerMaySolve() {
        JetStreamReach.Problem problem = JetStreamReach.ofFailure("S", "n3", new IOException("Timeout or no response"));
        assertThat(problem.leaderUnreachable()).isTrue();
        assertThat(problem.describe()).startsWith("JetStream did not answer about stream S").contains("(server n3)");
    }

    private static StreamInfo info(String cluster) throws Exception {
        String json = "{\"config\":{\"name\":\"S\",\"subjects\":[\"s.>\"]},\"state\":{},\"created\":"
                + "\"2026-12-02T00:00:00Z\",\"cluster\":{\"name\":\"c\"," + cluster + "}}";
        return new StreamInfo(JsonParser.parse(json.toCharArray()));
    }

}
