package io.varpulis.faults;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.ClusterInfo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * Which server leads a stream's raft group, and moving that leadership to a chosen server
 * by a leader step-down that prefers it ({@code $JS.API.STREAM.LEADER.STEPDOWN.<stream>}
 * with {@code {"placement":{"preferred":"nX"}}}, nats-server 2.11 and later): the
 * partition scenario puts the routing leader on the demo's own server, slow-disk puts the
 * routing stream and {@code detect}'s state on the slow server. Servers are named
 * {@code n1}, {@code n2}, ... in the order of their URLs.
 */
final class StreamLeaders {

    /** How long a step-down may take to elect a leader before it is asked again. */
    private static final Duration ELECTION = Duration.ofSeconds(10);

    private StreamLeaders() {
    }

    /**
     * The outcome of {@link #moveTo}.
     *
     * @param held whether the target led the stream at the end
     * @param stepDowns step-downs asked
     */
    record Move(boolean held, int stepDowns) {
    }

    /**
     * @param urls each server's client URL, in name order
     * @param stream a stream
     * @param not a server not to ask and not to believe as leader (one cut off), or -1
     * @return the index of the stream's leader as the first server that answers names it,
     * or -1 when none does
     */
    static int leader(List<String> urls, String stream, int not) {
        for (int i = 0; i < urls.size(); i++) {
            if (i == not) {
                continue;
            }
            try (Connection connection = connect(urls.get(i))) {
                ClusterInfo info = connection.jetStreamManagement().getStreamInfo(stream).getClusterInfo();
                if (info != null && info.getLeader() != null && !info.getLeader().equals("n" + (not + 1))) {
                    return Integer.parseInt(info.getLeader().substring(1)) - 1;
                }
            }
            catch (Exception e) {
                // Ask the next one.
            }
        }
        return -1;
    }

    /**
     * Asks the stream's leader to step down in favour of {@code target} until the target
     * leads, at most {@code attempts} times, each followed by up to 10 s for an election.
     * @param urls each server's client URL, in name order
     * @param stream a stream
     * @param target the server that should lead it
     * @param attempts step-downs at most
     * @return whether it held, and how many step-downs it took
     */
    static Move moveTo(List<String> urls, String stream, int target, int attempts) throws InterruptedException {
        String preferred = "n" + (target + 1);
        for (int attempt = 0; attempt < attempts; attempt++) {
            if (leader(urls, stream, -1) == target) {
                return new Move(true, attempt);
            }
            try (Connection connection = connect(urls.get(target))) {
                connection.request("$JS.API.STREAM.LEADER.STEPDOWN." + stream,
                        ("{\"placement\":{\"preferred\":\"" + preferred + "\"}}").getBytes(StandardCharsets.UTF_8),
                        Duration.ofSeconds(5));
            }
            catch (Exception e) {
                // Asked again below.
            }
            long deadline = System.nanoTime() + ELECTION.toNanos();
            while (System.nanoTime() < deadline && leader(urls, stream, -1) < 0) {
                Thread.sleep(250);
            }
        }
        return new Move(leader(urls, stream, -1) == target, attempts);
    }

    private static Connection connect(String url) throws IOException, InterruptedException {
        return Nats.connect(
                new Options.Builder().server(url).connectionTimeout(Duration.ofSeconds(2)).maxReconnects(0).build());
    }

}
