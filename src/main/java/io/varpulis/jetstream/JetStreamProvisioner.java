package io.varpulis.jetstream;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * Provisions every {@link StreamDeclaration}, {@link ConsumerDeclaration} and
 * {@link JetStreamDeclarations} bean once all singletons exist, before any node starts
 * consuming, in the manner of Spring Kafka's {@code KafkaAdmin.initialize()}. Kept apart
 * from the {@link JetStreamAdmin} so that a replaced admin bean is provisioned too. With
 * {@code varpulis.nats.jetstream.provision=false} nothing is created: existing streams
 * are compared with their declarations (drift) and missing ones reported.
 * <p>
 * A service gets what it declares (SPEC section 13): the dead-letter stream is added only
 * where something may park into it, that is when the application declares a stream or a
 * consumer of its own, or runs a listener; an application that declares nothing reserves
 * nothing on the server. A declared stream of the same name (a cluster node's
 * {@code VARPULIS_DLQ} bean, or one a service tuned) is provisioned instead.
 */
public class JetStreamProvisioner implements SmartInitializingSingleton {

    private final JetStreamAdmin admin;

    private final ObjectProvider<StreamDeclaration> streams;

    private final ObjectProvider<ConsumerDeclaration> consumers;

    private final ObjectProvider<JetStreamDeclarations> declarations;

    private final boolean create;

    private final StreamDeclaration deadLetters;

    private final BooleanSupplier listening;

    /**
     * @param admin the admin that talks to the server
     * @param streams every stream declaration bean
     * @param consumers every consumer declaration bean
     * @param declarations every group of declarations
     * @param create create what is absent ({@code varpulis.nats.jetstream.provision})
     * @param deadLetters the dead-letter stream parked events go to
     * ({@code VARPULIS_DLQ}), provisioned only when something else is declared or
     * {@code listening} says so
     * @param listening asked once every singleton exists: whether the application runs a
     * listener, which parks into {@code deadLetters}
     */
    public JetStreamProvisioner(JetStreamAdmin admin, ObjectProvider<StreamDeclaration> streams,
            ObjectProvider<ConsumerDeclaration> consumers, ObjectProvider<JetStreamDeclarations> declarations,
            boolean create, StreamDeclaration deadLetters, BooleanSupplier listening) {
        this.admin = admin;
        this.streams = streams;
        this.consumers = consumers;
        this.declarations = declarations;
        this.create = create;
        this.deadLetters = deadLetters;
        this.listening = listening;
    }

    /**
     * @throws JetStreamPermissionException when the node may not create a declared stream
     * or consumer
     * @throws IllegalStateException when the server refuses a declaration
     */
    @Override
    public void afterSingletonsInstantiated() {
        List<StreamDeclaration> allStreams = new ArrayList<>(
                Stream.concat(streams.orderedStream(), declarations.orderedStream().flatMap(d -> d.streams().stream()))
                    .toList());
        List<ConsumerDeclaration> allConsumers = Stream
            .concat(consumers.orderedStream(), declarations.orderedStream().flatMap(d -> d.consumers().stream()))
            .toList();
        boolean parks = !allStreams.isEmpty() || !allConsumers.isEmpty() || listening.getAsBoolean();
        if (parks && allStreams.stream().noneMatch(s -> s.name().equals(deadLetters.name()))) {
            allStreams.add(deadLetters);
        }
        if (create) {
            admin.provision(allStreams, allConsumers);
        }
        else {
            admin.inspect(allStreams);
        }
    }

}
