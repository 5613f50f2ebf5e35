package io.varpulis.jetstream;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

import java.util.List;
import java.util.stream.Stream;

/**
 * Provisions every {@link StreamDeclaration}, {@link ConsumerDeclaration} and {@link JetStreamDeclarations} bean
 * once all singletons exist, before any node starts consuming, in the manner of Spring Kafka's
 * {@code KafkaAdmin.initialize()}. Kept apart from the {@link JetStreamAdmin} so that a replaced admin bean is
 * provisioned too. With {@code varpulis.nats.jetstream.provision=false} nothing is created: existing streams are
 * compared with their declarations (drift) and missing ones reported.
 */
public class JetStreamProvisioner implements SmartInitializingSingleton {

    private final JetStreamAdmin admin;
    private final ObjectProvider<StreamDeclaration> streams;
    private final ObjectProvider<ConsumerDeclaration> consumers;
    private final ObjectProvider<JetStreamDeclarations> declarations;
    private final boolean create;

    /**
     * @param admin        the admin that talks to the server
     * @param streams      every stream declaration bean
     * @param consumers    every consumer declaration bean
     * @param declarations every group of declarations
     * @param create       create what is absent ({@code varpulis.nats.jetstream.provision})
     */
    public JetStreamProvisioner(JetStreamAdmin admin, ObjectProvider<StreamDeclaration> streams,
                                ObjectProvider<ConsumerDeclaration> consumers,
                                ObjectProvider<JetStreamDeclarations> declarations, boolean create) {
        this.admin = admin;
        this.streams = streams;
        this.consumers = consumers;
        this.declarations = declarations;
        this.create = create;
    }

    /**
     * @throws JetStreamPermissionException when the node may not create a declared stream or consumer
     * @throws IllegalStateException        when the server refuses a declaration
     */
    @Override
    public void afterSingletonsInstantiated() {
        List<StreamDeclaration> allStreams = Stream.concat(streams.orderedStream(),
                declarations.orderedStream().flatMap(d -> d.streams().stream())).toList();
        List<ConsumerDeclaration> allConsumers = Stream.concat(consumers.orderedStream(),
                declarations.orderedStream().flatMap(d -> d.consumers().stream())).toList();
        if (create) {
            admin.provision(allStreams, allConsumers);
        } else {
            admin.inspect(allStreams);
        }
    }
}
