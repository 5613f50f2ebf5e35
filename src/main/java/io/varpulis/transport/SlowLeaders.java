package io.varpulis.transport;

import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.api.ClusterInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Moves the leadership of a stream this node publishes to off a server whose writes are
 * much slower than its peers' (SPEC section 20, issue 41 item 5): a JetStream server does
 * not move leadership off a server whose fsync is slow, and a stream led by a server
 * fsyncing at 100 ms stores about ten messages a second, however they are sent. Run every
 * check interval ({@link #check()}): a stream whose median PubAck time over the interval
 * is at least {@link #FLOOR} and {@link #RATIO} times the fastest other stream's, in two
 * intervals in a row under the same leader, is asked to step down
 * ({@code $JS.API.STREAM.LEADER.STEPDOWN.<stream>}) in favour of the leader of that
 * fastest stream when it is a current replica (a server older than 2.11 ignores that
 * preference and elects any current replica); then it is left alone for
 * {@link #QUIET_AFTER}. Each step-down is logged at WARN and counted. A node whose every
 * stream is slow compares nothing (slow network or slow node, not a slow leader).
 * <p>
 * The server found slow is remembered for {@link #QUIET_AFTER}: meanwhile each durable
 * consumer this node pulls from whose leader is that server is stepped down too
 * ({@code $JS.API.CONSUMER.LEADER.STEPDOWN.<stream>.<durable>}, once per
 * {@link #QUIET_AFTER}): a consumer's leader records every delivery and ack in its own
 * log, and one on a server fsyncing at 100 ms held a pipeline to a few acks a second
 * after its stream had moved (issue 41). Every check, each of those consumers whose
 * leader's replica of the stream is {@link #BEHIND} entries or more behind the stream's
 * leader in two checks in a row is stepped down in favour of the stream's leader, whoever
 * found the server slow: a consumer delivers only what its leader's replica holds, and
 * one left on the slow server, a replica minutes behind once the stream's leadership had
 * left it, held 706 of 800 alerts back (issue 41).
 * <p>
 * It can do harm, so it is off unless
 * {@code varpulis.nats.jetstream.slow-leader-step-down=true}: each step-down is an
 * election (writes to that stream wait it out, about 100 ms on a quiet cluster), and two
 * nodes comparing different peers may step the same stream down in turn; a stream slow
 * for another reason (its messages far larger than its peers') would be stepped down
 * every {@link #QUIET_AFTER} to no avail. Not thread-safe: one scheduler thread calls
 * {@link #check()}.
 */
public final class SlowLeaders {

    /** A stream faster than this is never slow, whatever its peers. */
    static final Duration FLOOR = Duration.ofMillis(200);

    /** How many times slower than the fastest peer a slow stream is. */
    static final int RATIO = 10;

    /**
     * PubAcks a stream needs in an interval to be compared: a worker's heartbeats (one a
     * second in the demo, one every 5 s by default) make a peer on every worker.
     */
    static final int MIN_SAMPLES = 1;

    /**
     * Raft entries a consumer leader's replica of its stream may be behind the stream's
     * leader: more, in two checks in a row, and the consumer is stepped down.
     */
    static final long BEHIND = 100;

    /** How long a stream stepped down is left alone: its new leader is given time. */
    static final Duration QUIET_AFTER = Duration.ofSeconds(60);

    private static final Logger log = LoggerFactory.getLogger(SlowLeaders.class);

    private final Connection connection;

    private final StreamLatencies latencies;

    private final Consumer<String> steppedDown;

    /** Stream -> the leader it was slow under at the last check. */
    private final Map<String, String> suspects = new HashMap<>();

    private final Map<String, Long> quietUntil = new HashMap<>();

    /**
     * Consumer ({@code <stream> > <durable>}) -> its leader, found behind at the last
     * check.
     */
    private final Map<String, String> behind = new HashMap<>();

    /** Server -> until when it counts as slow. */
    private final Map<String, Long> slowServers = new HashMap<>();

    /**
     * @param connection the node's connection
     * @param latencies the PubAck times its transport records
     * @param steppedDown counts a step-down of a stream, or of a consumer named
     * {@code <stream> > <durable>} ({@code varpulis.stream.leader.stepdowns{stream}})
     */
    public SlowLeaders(Connection connection, StreamLatencies latencies, Consumer<String> steppedDown) {
        this.connection = connection;
        this.latencies = latencies;
        this.steppedDown = steppedDown;
    }

    /**
     * Compares the streams' PubAck times since the last check; steps slow leaders down,
     * and the leaders of this node's consumers on a server found slow.
     */
    public void check() {
        long now = System.nanoTime();
        slowServers.values().removeIf(until -> now - until > 0);
        checkStreams(now);
        Map<String, Optional<ClusterInfo>> streams = new HashMap<>();
        Set<String> consumers = new HashSet<>();
        latencies.consumers().forEach(consumer -> {
            consumers.add(consumer.get(0) + " > " + consumer.get(1));
            checkConsumer(consumer.get(0), consumer.get(1), now,
                    streams.computeIfAbsent(consumer.get(0), this::clusterInfo));
        });
        behind.keySet().retainAll(consumers);
    }

    private void checkStreams(long now) {
        Map<String, Long> medians = latencies.drain(MIN_SAMPLES);
        suspects.keySet().retainAll(medians.keySet());
        medians.forEach((stream, median) -> {
            Optional<Map.Entry<String, Long>> fastest = medians.entrySet()
                .stream()
                .filter(e -> !e.getKey().equals(stream))
                .min(Map.Entry.comparingByValue());
            boolean slow = fastest.isPresent() && median >= FLOOR.toNanos()
                    && median >= RATIO * Math.max(1, fastest.get().getValue())
                    && now - quietUntil.getOrDefault(stream, now - 1) > 0;
            if (!slow) {
                suspects.remove(stream);
                return;
            }
            Optional<ClusterInfo> info = clusterInfo(stream);
            String leader = info.map(ClusterInfo::getLeader).orElse(null);
            if (leader == null || info.get().getReplicas() == null || info.get().getReplicas().isEmpty()) {
                return;
            }
            if (!leader.equals(suspects.put(stream, leader))) {
                return;
            }
            String preferred = clusterInfo(fastest.get().getKey()).map(ClusterInfo::getLeader)
                .filter(p -> !p.equals(leader))
                .filter(p -> info.get().getReplicas().stream().anyMatch(r -> r.getName().equals(p) && r.isCurrent()))
                .orElse(null);
            stepDown(stream, leader, preferred, median, fastest.get());
            suspects.remove(stream);
            quietUntil.put(stream, now + QUIET_AFTER.toNanos());
            slowServers.put(leader, now + QUIET_AFTER.toNanos());
        });
    }

    /**
     * Steps a consumer down, once per {@link #QUIET_AFTER}, when a slow server leads it,
     * or when its leader's replica of the stream is at least {@link #BEHIND} entries
     * behind the stream's leader in two checks in a row: a consumer delivers only what
     * its leader's replica holds (and counts nothing pending beyond it), so one left on a
     * server that no longer leads its stream because its fsync is slow held a pipeline
     * minutes behind (issue 41), whichever node had found that server slow.
     */
    private void checkConsumer(String stream, String durable, long now, Optional<ClusterInfo> streamInfo) {
        String name = stream + " > " + durable;
        if (now - quietUntil.getOrDefault(name, now - 1) <= 0) {
            return;
        }
        String leader;
        try {
            ClusterInfo info = connection.jetStreamManagement().getConsumerInfo(stream, durable).getClusterInfo();
            leader = info == null ? null : info.getLeader();
        }
        catch (Exception e) {
            log.debug("consumer {}: no cluster info ({})", name, e.toString());
            return;
        }
        if (leader == null) {
            return;
        }
        String streamLeader = streamInfo.map(ClusterInfo::getLeader).orElse(null);
        long lag = lagOf(streamInfo, leader);
        String why;
        if (slowServers.containsKey(leader)) {
            why = "a server whose streams were found slow";
        }
        else if (lag >= BEHIND && leader.equals(behind.put(name, leader))) {
            why = "a replica " + lag + " entries behind the stream's leader " + streamLeader + " in two checks";
        }
        else {
            if (lag < BEHIND) {
                behind.remove(name);
            }
            return;
        }
        behind.remove(name);
        quietUntil.put(name, now + QUIET_AFTER.toNanos());
        String body = streamLeader == null || streamLeader.equals(leader) ? ""
                : "{\"placement\":{\"preferred\":\"" + streamLeader + "\"}}";
        String answer = request("$JS.API.CONSUMER.LEADER.STEPDOWN." + stream + "." + durable, body);
        if (answer == null) {
            return;
        }
        steppedDown.accept(name);
        log.warn("consumer {}: led by {}, {}; asked it to step down{}: {}", name, leader, why,
                body.isEmpty() ? "" : " in favour of " + streamLeader, answer);
    }

    /**
     * @return how many entries the server's replica is behind the stream's leader, 0 when
     * it leads, is current or is unknown
     */
    private static long lagOf(Optional<ClusterInfo> streamInfo, String server) {
        return streamInfo.filter(info -> info.getReplicas() != null)
            .flatMap(info -> info.getReplicas().stream().filter(r -> server.equals(r.getName())).findFirst())
            .filter(replica -> !replica.isCurrent())
            .map(replica -> replica.getLag())
            .orElse(0L);
    }

    private void stepDown(String stream, String leader, String preferred, long median,
            Map.Entry<String, Long> fastest) {
        String body = preferred == null ? "" : "{\"placement\":{\"preferred\":\"" + preferred + "\"}}";
        String answer = request("$JS.API.STREAM.LEADER.STEPDOWN." + stream, body);
        if (answer == null) {
            return;
        }
        steppedDown.accept(stream);
        log.warn(
                "stream {}: PubAcks took {} ms (median) for 2 checks under leader {}, against {} ms for stream {}; "
                        + "asked {} to step down{}: {}",
                stream, median / 1_000_000, leader, fastest.getValue() / 1_000_000, fastest.getKey(), leader,
                preferred == null ? "" : " in favour of " + preferred, answer);
    }

    /**
     * @return the server's answer, or what failed; {@code null} when interrupted
     */
    private String request(String subject, String body) {
        try {
            Message reply = connection.request(subject, body.getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(2));
            return reply == null ? "no answer" : new String(reply.getData(), StandardCharsets.UTF_8);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
        catch (RuntimeException e) {
            return e.toString();
        }
    }

    private Optional<ClusterInfo> clusterInfo(String stream) {
        try {
            return Optional.ofNullable(connection.jetStreamManagement().getStreamInfo(stream).getClusterInfo());
        }
        catch (Exception e) {
            log.debug("stream {}: no cluster info ({})", stream, e.toString());
            return Optional.empty();
        }
    }

}
