package io.varpulis.autoconfigure;

import io.nats.client.Connection;
import io.varpulis.dlq.DeadLetterParker;
import io.varpulis.dlq.DeathEnvelope;
import io.varpulis.container.ContainerSettings;
import io.varpulis.container.DeliveryContainerFactory;
import io.varpulis.support.DaemonThreads;
import org.springframework.boot.thread.Threading;
import org.springframework.core.env.Environment;
import org.springframework.core.task.VirtualThreadTaskExecutor;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.nats.Substrate;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.ClusterTransports;
import io.varpulis.transport.DeliveryDecorator;
import io.varpulis.transport.RequestReply;
import io.varpulis.transport.SlowLeaders;
import io.varpulis.transport.StreamLatencies;
import io.varpulis.metrics.SubstrateMetrics;
import io.micrometer.core.instrument.Counter;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import io.varpulis.transport.Requester;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import java.time.Clock;
import java.time.Duration;

/**
 * Auto-configuration of the {@link ClusterTransport} on the configured substrate, and of
 * what every durable consumer shares: the {@link DeadLetterParker} and the
 * {@link DeliveryContainerFactory}.
 */
@AutoConfiguration(after = { NatsAutoConfiguration.class, JetStreamAutoConfiguration.class,
        SubstrateMetricsAutoConfiguration.class })
@ConditionalOnBean(Connection.class)
public class TransportAutoConfiguration {

    /**
     * @param connection the connection
     * @param substrate the substrate
     * @param admin the JetStream admin (present on jetstream only)
     * @param publishing the PubAck window and timeout
     * @param consumer the batch size of pulls
     * @return the transport; its consumptions stop with the context
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public ClusterTransport clusterTransport(Connection connection, Substrate substrate,
            ObjectProvider<JetStreamAdmin> admin, JetStreamPublishProperties publishing,
            JetStreamConsumerProperties consumer, StreamLatencies latencies) {
        return ClusterTransports.create(connection, substrate, admin.getIfAvailable(), publishing.toSettings(consumer),
                latencies);
    }

    /**
     * @return the PubAck times of each stream the transport publishes to
     */
    @Bean
    @ConditionalOnMissingBean
    public StreamLatencies streamLatencies() {
        return new StreamLatencies();
    }

    /**
     * Issue 41, SPEC section 20: a stream whose leader's writes are much slower than its
     * peers' is asked to step down, when
     * {@code varpulis.nats.jetstream.slow-leader-step-down=true}.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = "varpulis.nats.jetstream", name = "slow-leader-step-down", havingValue = "true")
    static class SlowLeaderConfiguration {

        /** Every 5 s: the PubAck times of two checks decide. */
        private static final Duration CHECK_EVERY = Duration.ofSeconds(5);

        @Bean(name = "varpulisSlowLeaderScheduler", defaultCandidate = false)
        ThreadPoolTaskScheduler varpulisSlowLeaderScheduler() {
            return DaemonThreads.scheduler("varpulis-slow-leaders");
        }

        @Bean
        @ConditionalOnMissingBean
        SlowLeaders slowLeaders(Connection connection, StreamLatencies latencies, SubstrateMetrics metrics,
                @Qualifier("varpulisSlowLeaderScheduler") ThreadPoolTaskScheduler scheduler) {
            SlowLeaders leaders = new SlowLeaders(connection, latencies,
                    stream -> Counter.builder("varpulis.stream.leader.stepdowns")
                        .description("leader step-downs this node asked of a stream much slower than its peers")
                        .tag("stream", stream)
                        .register(metrics.registry())
                        .increment());
            scheduler.scheduleWithFixedDelay(leaders::check, CHECK_EVERY);
            return leaders;
        }

    }

    /**
     * @return core request/reply for commands and registration, observed when observation
     * is on
     */
    @Bean
    @ConditionalOnMissingBean
    public RequestReply requestReply() {
        return RequestReply.PLAIN;
    }

    /**
     * @param connection the connection
     * @param substrate core: jnats' request-reply; jetstream: stored requests and replies
     * @param admin finds the stream of the stored replies (jetstream only)
     * @return the requests of the template's {@code sendAndReceive}, observed when
     * observation is on
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public Requester natsRequester(Connection connection, Substrate substrate, ObjectProvider<JetStreamAdmin> admin) {
        return substrate == Substrate.JETSTREAM ? Requester.stored(connection, admin.getObject())
                : Requester.core(connection);
    }

    /**
     * @param transport publishes envelopes
     * @return the DLQ parker
     */
    @Bean
    @ConditionalOnMissingBean
    public DeadLetterParker deadLetterParker(ClusterTransport transport) {
        return new DeadLetterParker(transport, DeathEnvelope.jsonMapper(), Clock.systemUTC());
    }

    /**
     * @param transport consumes and publishes
     * @param parker parks what cannot be applied
     * @param properties the nak delay
     * @param decorator the process observation of each delivery, when observation is on
     * @param environment tells whether Spring Boot runs on virtual threads
     * ({@code spring.threads.virtual.enabled} on Java 21 or later): the containers'
     * applying threads are virtual then, as Spring Boot's Kafka and Rabbit listeners' are
     * @return the factory of every durable consumer's container (route edges, listeners,
     * heartbeats)
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public DeliveryContainerFactory deliveryContainerFactory(ClusterTransport transport, DeadLetterParker parker,
            JetStreamConsumerProperties properties, ObjectProvider<DeliveryDecorator> decorator,
            Environment environment) {
        return new DeliveryContainerFactory(transport, parker, ContainerSettings.of(properties.toSettings()),
                decorator.getIfAvailable(() -> DeliveryDecorator.NONE),
                Threading.VIRTUAL.isActive(environment)
                        ? new VirtualThreadTaskExecutor("varpulis-apply-").getVirtualThreadFactory()
                        : DaemonThreads.named("varpulis-apply"));
    }

}
