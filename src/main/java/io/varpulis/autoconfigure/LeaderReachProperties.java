package io.varpulis.autoconfigure;

import io.varpulis.jetstream.LeaderReachReconnect;
import io.varpulis.support.PropertyChecks;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

import java.time.Duration;

/**
 * {@code varpulis.nats.jetstream.leader-reach.*}: when a node leaves a NATS server that
 * cannot reach its streams' leaders (issue 25, SPEC section 9), see
 * {@link LeaderReachReconnect}.
 */
@ConfigurationProperties(prefix = "varpulis.nats.jetstream.leader-reach")
public class LeaderReachProperties implements Validator {

    /**
     * How long the connected server may fail to reach a stream leader (no answer,
     * "JetStream system temporarily unavailable", a stream without leader, JetStream
     * disabled on it) before the node reconnects to another server of varpulis.nats.url;
     * 0 never reconnects. Doubled after each reconnect (up to 8 times), back to this once
     * the server reaches the leaders again. A stream without leader while the meta leader
     * answers is cluster-wide and never reconnects. Longer than a stream leader election
     * (4-8 s seen on R3 under load), so an election never moves a node; short against a
     * partition, which otherwise stalls the node throughout.
     */
    private Duration reconnectAfter = Duration.ofSeconds(15);

    /**
     * How often the connected server is asked (one stream info per stream the node uses);
     * also the longest wait for each answer. 2 s: a stall is seen within 4 s, at a cost
     * of a few small requests per interval.
     */
    private Duration checkInterval = Duration.ofSeconds(2);

    /**
     * How long the connected server may fail to reach a stream leader (or answer) before
     * the jetstream health component, and so readiness, turns DOWN; 0 turns it DOWN at
     * once. 10 s: longer than a stream leader election (4-8 s), which every node sees at
     * once and which must not make them all unready together. JetStream disabled on the
     * server is DOWN at once whatever this says.
     */
    private Duration downAfter = Duration.ofSeconds(10);

    /**
     * @return how long the server fails to reach a leader before a reconnect; 0 never
     * reconnects
     */
    public Duration getReconnectAfter() {
        return reconnectAfter;
    }

    /**
     * @param reconnectAfter how long the server fails to reach a leader before a
     * reconnect; 0 never reconnects
     */
    public void setReconnectAfter(Duration reconnectAfter) {
        this.reconnectAfter = reconnectAfter;
    }

    /**
     * @return how often the connected server is asked, and the longest wait for each
     * answer
     */
    public Duration getCheckInterval() {
        return checkInterval;
    }

    /**
     * @param checkInterval how often the connected server is asked, and the longest wait
     * for each answer
     */
    public void setCheckInterval(Duration checkInterval) {
        this.checkInterval = checkInterval;
    }

    /**
     * @return how long a transient JetStream problem lasts before the jetstream health
     * component turns DOWN
     */
    public Duration getDownAfter() {
        return downAfter;
    }

    /**
     * @param downAfter how long a transient JetStream problem lasts before the jetstream
     * health turns DOWN
     */
    public void setDownAfter(Duration downAfter) {
        this.downAfter = downAfter;
    }

    /**
     * @return what {@link LeaderReachReconnect} receives: reconnect-after and
     * check-interval
     */
    public LeaderReachReconnect.Settings toSettings() {
        return new LeaderReachReconnect.Settings(reconnectAfter, checkInterval);
    }

    /**
     * @param type a class being bound
     * @return whether it is this class, which validates itself while Spring Boot binds it
     */
    @Override
    public boolean supports(Class<?> type) {
        return LeaderReachProperties.class.isAssignableFrom(type);
    }

    /**
     * @param target the bound properties
     * @param errors where a negative duration, or a check interval under 100 ms, goes
     */
    @Override
    public void validate(Object target, Errors errors) {
        LeaderReachProperties properties = (LeaderReachProperties) target;
        PropertyChecks.atLeast(errors, "reconnectAfter", properties.getReconnectAfter(), Duration.ZERO);
        PropertyChecks.atLeast(errors, "checkInterval", properties.getCheckInterval(), Duration.ofMillis(100));
        PropertyChecks.atLeast(errors, "downAfter", properties.getDownAfter(), Duration.ZERO);
    }

}
