package io.varpulis.autoconfigure;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.varpulis.container.DeliveryContainerFactory;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.JetStreamDeclarations;
import io.varpulis.jetstream.StreamDeclaration;
import io.varpulis.messaging.ImplicitCoreSubstrateGuard;
import io.varpulis.messaging.NatsListenerAnnotationBeanPostProcessor;
import io.varpulis.messaging.ListenerEndpoints;
import io.varpulis.messaging.ListenerMethods;
import io.varpulis.messaging.NatsListenerContainerFactory;
import io.varpulis.messaging.NatsListenersEndpoint;
import io.varpulis.messaging.NatsListenerErrorHandler;
import io.varpulis.messaging.NatsListenerEndpointRegistry;
import io.varpulis.messaging.NatsTemplate;
import io.varpulis.messaging.PayloadConverter;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.nats.Substrate;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.Requester;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.converter.MessageConverter;
import org.springframework.validation.Validator;
import org.springframework.core.env.Environment;

import java.util.List;
import java.util.stream.Stream;

/**
 * Auto-configuration of a service's messaging on the substrate (SPEC section 13): the
 * {@link NatsTemplate}, the {@link PayloadConverter} (Jackson 2: the application's one
 * {@code com.fasterxml.jackson.databind.ObjectMapper} bean when it has one, else a mapper
 * with every module on the classpath), and the {@code @NatsListener} machinery (the
 * annotation post-processor and the {@link NatsListenerEndpointRegistry} that starts and
 * drains the listeners), and the {@link ImplicitCoreSubstrateGuard} that refuses a
 * service with listeners or streams on a substrate it did not choose.
 */
@AutoConfiguration(after = TransportAutoConfiguration.class)
@ConditionalOnBean({ ClusterTransport.class, DeliveryContainerFactory.class })
@EnableConfigurationProperties(NatsListenerProperties.class)
public class NatsListenerAutoConfiguration {

    /**
     * @return finds the {@code @NatsListener} methods; static, so it is ready before
     * every other bean
     */
    @Bean
    @ConditionalOnMissingBean
    public static NatsListenerAnnotationBeanPostProcessor natsListenerAnnotationBeanPostProcessor() {
        return new NatsListenerAnnotationBeanPostProcessor();
    }

    /**
     * @param substrate the substrate in use
     * @param environment tells whether {@code varpulis.nats.substrate} was set
     * @param listeners the {@code @NatsListener} methods found
     * @param nats the streams of {@code varpulis.nats.jetstream.streams.*}
     * @param streams the {@link StreamDeclaration} beans
     * @param declarations the {@link JetStreamDeclarations} beans
     * @return the check that refuses a service with listeners or streams on a substrate
     * it did not choose
     */
    @Bean
    @ConditionalOnMissingBean
    public ImplicitCoreSubstrateGuard implicitCoreSubstrateGuard(Substrate substrate, Environment environment,
            NatsListenerAnnotationBeanPostProcessor listeners, JetStreamStreamsProperties nats,
            ObjectProvider<StreamDeclaration> streams, ObjectProvider<JetStreamDeclarations> declarations) {
        return new ImplicitCoreSubstrateGuard(substrate,
                Binder.get(environment).bind(ImplicitCoreSubstrateGuard.PROPERTY, String.class).isBound(), listeners,
                () -> Stream
                    .of(nats.getStreams().keySet().stream(), streams.orderedStream().map(StreamDeclaration::name),
                            declarations.orderedStream()
                                .flatMap(d -> d.streams().stream())
                                .map(StreamDeclaration::name))
                    .flatMap(names -> names)
                    .distinct()
                    .toList());
    }

    /**
     * @param mapper the application's Jackson 2 mapper, if it has exactly one
     * @return the payload converter
     */
    @Bean
    @ConditionalOnMissingBean
    public PayloadConverter natsPayloadConverter(ObjectProvider<ObjectMapper> mapper) {
        return new PayloadConverter(mapper.getIfUnique(() -> JsonMapper.builder().findAndAddModules().build()));
    }

    /**
     * @param transport the transport
     * @param converter writes payloads and reads replies
     * @param requester sends the template's requests
     * @return the template
     */
    @Bean
    @ConditionalOnMissingBean
    public NatsTemplate natsTemplate(ClusterTransport transport, PayloadConverter converter,
            ObjectProvider<Requester> requester) {
        return new NatsTemplate(transport, converter, requester.getIfAvailable());
    }

    /**
     * @param converters the service's Spring Messaging {@code MessageConverter}, if it
     * has exactly one (else the payload converter converts listeners' payloads)
     * @param payloads the payload converter (Jackson 2)
     * @param validators validates {@code @Valid} payloads, if the service has one
     * validator
     * @param beans resolves expressions in listener annotations
     * @return binds listener methods with Spring Messaging
     */
    @Bean
    @ConditionalOnMissingBean
    public ListenerMethods natsListenerMethods(ObjectProvider<MessageConverter> converters, PayloadConverter payloads,
            ObjectProvider<Validator> validators, BeanFactory beans) {
        List<MessageConverter> own = converters.orderedStream()
            .filter(converter -> !(converter instanceof PayloadConverter))
            .toList();
        if (own.size() > 1) {
            throw new IllegalStateException("the service declares " + own.size() + " Spring Messaging MessageConverter "
                    + "beans (" + own.stream().map(c -> c.getClass().getName()).toList() + "): listeners take their "
                    + "payloads from one; declare one, or a CompositeMessageConverter of them");
        }
        return new ListenerMethods(own.isEmpty() ? payloads : own.get(0), validators.getIfUnique(), beans);
    }

    /**
     * @param nats the consumer defaults
     * @param listeners the overrides and the idle event interval
     * @param errorHandlers the service's error handlers: one of the type is every
     * listener's, others are named by {@code @NatsListener(errorHandler = "...")}
     * @param methods binds listener methods
     * @param beans finds an error handler by its bean name
     * @return each listener's settings
     */
    @Bean
    @ConditionalOnMissingBean
    public ListenerEndpoints natsListenerEndpoints(JetStreamConsumerProperties nats, NatsListenerProperties listeners,
            ObjectProvider<NatsListenerErrorHandler> errorHandlers, ListenerMethods methods, BeanFactory beans) {
        return new ListenerEndpoints(nats.toSettings(), listeners.toSettings(),
                new ListenerEndpoints.ErrorHandlers(name -> beans.getBean(name, NatsListenerErrorHandler.class),
                        errorHandlers.getIfUnique()),
                methods, listeners.getListenerIdleEventInterval());
    }

    /**
     * @param containers runs each listener's durable consumer
     * @param admin finds a listener's stream and reads its consumer (jetstream only)
     * @param metrics the meters
     * @param template publishes replies
     * @param endpoints each listener's settings
     * @param events publishes each container's events
     * @return the container factory
     */
    @Bean
    @ConditionalOnMissingBean
    public NatsListenerContainerFactory natsListenerContainerFactory(DeliveryContainerFactory containers,
            ObjectProvider<JetStreamAdmin> admin, SubstrateMetrics metrics, NatsTemplate template,
            ListenerEndpoints endpoints, ApplicationEventPublisher events) {
        return new NatsListenerContainerFactory(containers, admin.getIfAvailable(), metrics, template, endpoints,
                events);
    }

    /**
     * @param listeners the annotated methods
     * @param factory makes their containers
     * @param properties the drain timeout
     * @return the registry, started with the context
     */
    @Bean
    @ConditionalOnMissingBean
    public NatsListenerEndpointRegistry natsListenerEndpointRegistry(NatsListenerAnnotationBeanPostProcessor listeners,
            NatsListenerContainerFactory factory, NatsListenerProperties properties) {
        return new NatsListenerEndpointRegistry(listeners, factory, properties.getListenerDrainTimeout());
    }

    /** The {@code natslisteners} endpoint, with Actuator's endpoints on the classpath. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Endpoint.class)
    static class NatsListenersEndpointConfiguration {

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnAvailableEndpoint
        NatsListenersEndpoint natsListenersEndpoint(NatsListenerEndpointRegistry registry) {
            return new NatsListenersEndpoint(registry);
        }

    }

}
