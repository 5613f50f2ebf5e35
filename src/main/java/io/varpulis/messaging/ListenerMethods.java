package io.varpulis.messaging;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.messaging.converter.MessageConverter;
import org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver;
import org.springframework.validation.Validator;

import java.lang.reflect.Method;
import java.util.List;

/**
 * Binds {@link NatsListener} methods with Spring Messaging's
 * {@link DefaultMessageHandlerMethodFactory}, as Spring Kafka and Spring AMQP bind
 * theirs: {@code @Payload} (and an unannotated payload parameter), {@code @Header},
 * {@code @Headers}, {@code Message<T>}, with {@link NatsHeader} and the provided
 * {@link DeliveryMetadata} and {@code io.nats.client.impl.Headers} besides; payloads
 * converted by the service's {@link MessageConverter} bean or the
 * {@link PayloadConverter} (Jackson 2), and validated ({@code @Valid}) by its
 * {@link Validator} when it has one.
 */
public class ListenerMethods {

    private final DefaultMessageHandlerMethodFactory factory = new DefaultMessageHandlerMethodFactory();

    private static final Logger log = LoggerFactory.getLogger(ListenerMethods.class);

    private final GuardedConverter converter;

    /**
     * Whether the service's own converter converts payloads: it may read the headers (a
     * content type).
     */
    private final boolean ownConverter;

    /**
     * @param converter converts payloads: the service's {@code MessageConverter}, or the
     * {@link PayloadConverter}
     * @param validator validates {@code @Valid} payloads, or {@code null}
     * @param beans resolves expressions in annotations, or {@code null}
     */
    public ListenerMethods(MessageConverter converter, Validator validator, BeanFactory beans) {
        this.converter = new GuardedConverter(converter);
        this.ownConverter = !(converter instanceof PayloadConverter);
        if (ownConverter) {
            log.info("listener payloads converted by the service's {} (headers passed to it)",
                    converter.getClass().getName());
        }
        factory.setMessageConverter(this.converter);
        factory.setCustomArgumentResolvers(List.<HandlerMethodArgumentResolver>of(new NatsHeaderResolver()));
        if (validator != null) {
            factory.setValidator(validator);
        }
        if (beans != null) {
            factory.setBeanFactory(beans);
        }
        factory.afterPropertiesSet();
    }

    /**
     * @param bean the bean
     * @param method its annotated method
     * @param batch whether it takes a batch ({@code List<T>} or {@code List<Message<T>>})
     * @return the binding
     * @throws IllegalStateException naming the method, when its parameters do not fit
     */
    ListenerMethod bind(Object bean, Method method, boolean batch) {
        return new ListenerMethod(bean, method, batch, factory.createInvocableHandlerMethod(bean, method), converter,
                ownConverter);
    }

}
