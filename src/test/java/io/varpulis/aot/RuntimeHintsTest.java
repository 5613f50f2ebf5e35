package io.varpulis.aot;

import io.nats.client.impl.Headers;
import io.varpulis.autoconfigure.JetStreamHealthProperties;
import io.varpulis.autoconfigure.JetStreamStreamsProperties;
import io.varpulis.autoconfigure.JetStreamConsumerProperties;
import io.varpulis.autoconfigure.JetStreamPublishProperties;
import io.varpulis.autoconfigure.NatsConnectionProperties;
import io.varpulis.autoconfigure.NatsPropertiesRuntimeHints;
import io.varpulis.dlq.DeathEnvelope;
import io.varpulis.autoconfigure.DeadLetterProperties;
import io.varpulis.dlq.ParkedEvent;
import io.varpulis.autoconfigure.LeaderReachProperties;
import io.varpulis.messaging.DeliveryMetadata;
import io.varpulis.messaging.NatsHeader;
import io.varpulis.messaging.NatsListener;
import io.varpulis.autoconfigure.NatsListenerProperties;
import io.varpulis.messaging.OutboundEvent;
import io.varpulis.nats.SubstrateEditor;
import io.varpulis.autoconfigure.node.NodeRuntimeHints;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.PipelineGroupSpec;
import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.javapoet.ClassName;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The library's RuntimeHints (issue 33, SPEC section 13), checked with Spring's
 * {@link RuntimeHintsPredicates}: a service's {@code @NatsListener} methods are invocable
 * and their payload and reply types bindable; the JSON records the library reads and
 * writes and its {@code @ConfigurationProperties} (nested types included) are bindable;
 * both contributors are registered in {@code META-INF/spring/aot.factories}.
 */
class RuntimeHintsTest {

    record Order(String id, Address address) {
    }

    record Address(String city) {
    }

    record Receipt(String orderId, long sequence) {
    }

    static class OrderListener {

        @NatsListener(id = "orders", subject = "orders.>", sendTo = "receipts")
        Receipt onOrder(Order order, @NatsHeader("Origin") String origin, Headers headers, DeliveryMetadata delivery) {
            return new Receipt(order.id(), delivery.streamSequence());
        }

        @NatsListener(id = "replies", subject = "replies.>")
        OutboundEvent onReply(List<Order> orders) {
            return OutboundEvent.to("x", orders);
        }

        void notAListener(Receipt receipt) {
        }

    }

    static class PlainBean {

        void work(Receipt receipt) {
        }

    }

    @Test
    void listenerMethodsAreInvocableAndTheirPayloadAndReplyTypesBindable() throws Exception {
        RuntimeHints hints = contribute(OrderListener.class);

        assertThat(RuntimeHintsPredicates.reflection()
            .onMethodInvocation(OrderListener.class.getDeclaredMethod("onOrder", Order.class, String.class,
                    Headers.class, DeliveryMetadata.class)))
            .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection()
            .onMethodInvocation(OrderListener.class.getDeclaredMethod("onReply", List.class))).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(OrderListener.class, "notAListener"))
            .rejects(hints);
        for (Class<?> bound : List.of(Order.class, Address.class, Receipt.class)) {
            assertThat(RuntimeHintsPredicates.reflection().onType(bound)).as(bound.getSimpleName()).accepts(hints);
            assertThat(RuntimeHintsPredicates.reflection().onConstructorInvocation(bound.getDeclaredConstructors()[0]))
                .as(bound.getSimpleName())
                .accepts(hints);
        }
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Order.class, "id")).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Address.class, "city")).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(DeliveryMetadata.class)).rejects(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(Headers.class)).rejects(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(OutboundEvent.class)).rejects(hints);
    }

    @Test
    void aBeanWithoutListenersContributesNothing() {
        assertThat(new NatsListenerBeanRegistrationAotProcessor().processAheadOfTime(registered(PlainBean.class)))
            .isNull();
    }

    @Test
    void theLibrarysJsonRecordsAndConfigurationPropertiesAreBindable() {
        RuntimeHints hints = new RuntimeHints();
        new VarpulisRuntimeHints().registerHints(hints, getClass().getClassLoader());

        for (Class<?> json : List.of(DeathEnvelope.class, ParkedEvent.class)) {
            assertThat(RuntimeHintsPredicates.reflection().onType(json)).as(json.getName()).accepts(hints);
        }
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(DeathEnvelope.class, "originalSubject"))
            .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection()
            .onConstructorInvocation(DeathEnvelope.class.getDeclaredConstructors()[0])).accepts(hints);
        for (Class<?> properties : List.of(NatsListenerProperties.class, NatsListenerProperties.Listener.class,
                LeaderReachProperties.class, DeadLetterProperties.class)) {
            assertThat(RuntimeHintsPredicates.reflection().onType(properties)).as(properties.getName()).accepts(hints);
        }
        assertThat(
                RuntimeHintsPredicates.reflection().onConstructorInvocation(SubstrateEditor.class.getConstructors()[0]))
            .accepts(hints);
    }

    @Test
    void theNodesRoutedEventsAndPipelineGroupsAreBindable() {
        RuntimeHints hints = new RuntimeHints();
        new NodeRuntimeHints().registerHints(hints, getClass().getClassLoader());

        for (Class<?> json : List.of(Event.class, PipelineGroupSpec.class, PipelineGroupSpec.PipelineSpec.class,
                PipelineGroupSpec.RouteSpec.class)) {
            assertThat(RuntimeHintsPredicates.reflection().onType(json)).as(json.getName()).accepts(hints);
        }
        assertThat(RuntimeHintsPredicates.reflection().onType(Event.class)).rejects(libraryHints());
    }

    private RuntimeHints libraryHints() {
        RuntimeHints hints = new RuntimeHints();
        new VarpulisRuntimeHints().registerHints(hints, getClass().getClassLoader());
        return hints;
    }

    @Test
    void everyPropertiesClassOfVarpulisNatsAndItsNestedTypesCanBeBound() {
        RuntimeHints hints = new RuntimeHints();
        new NatsPropertiesRuntimeHints().registerHints(hints, getClass().getClassLoader());

        for (Class<?> properties : List.of(NatsConnectionProperties.class, NatsConnectionProperties.Tls.class,
                JetStreamPublishProperties.class, JetStreamConsumerProperties.class, JetStreamStreamsProperties.class,
                JetStreamStreamsProperties.StreamSpec.class, JetStreamHealthProperties.class)) {
            assertThat(RuntimeHintsPredicates.reflection().onType(properties)).as(properties.getName()).accepts(hints);
        }
        assertThat(
                RuntimeHintsPredicates.reflection().onMethodInvocation(NatsConnectionProperties.class, "setSubstrate"))
            .accepts(hints);
        assertThat(
                RuntimeHintsPredicates.reflection().onMethodInvocation(JetStreamConsumerProperties.class, "setAckWait"))
            .accepts(hints);
    }

    @Test
    void bothContributorsAreRegisteredInAotFactories() {
        SpringFactoriesLoader aot = SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories");
        assertThat(aot.load(RuntimeHintsRegistrar.class)).hasAtLeastOneElementOfType(VarpulisRuntimeHints.class)
            .hasAtLeastOneElementOfType(NatsPropertiesRuntimeHints.class);
        assertThat(aot.load(BeanRegistrationAotProcessor.class))
            .hasAtLeastOneElementOfType(NatsListenerBeanRegistrationAotProcessor.class);
    }

    private static RuntimeHints contribute(Class<?> beanClass) {
        BeanRegistrationAotContribution contribution = new NatsListenerBeanRegistrationAotProcessor()
            .processAheadOfTime(registered(beanClass));
        assertThat(contribution).isNotNull();
        DefaultGenerationContext generation = new DefaultGenerationContext(
                new ClassNameGenerator(ClassName.get("com.example", "Service")), new InMemoryGeneratedFiles());
        contribution.applyTo(generation, null);
        return generation.getRuntimeHints();
    }

    private static RegisteredBean registered(Class<?> beanClass) {
        DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
        beanFactory.registerBeanDefinition("bean", new RootBeanDefinition(beanClass));
        return RegisteredBean.of(beanFactory, "bean");
    }

}
