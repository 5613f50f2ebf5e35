package io.varpulis.aot;

import org.springframework.messaging.handler.annotation.Header;
import io.nats.client.impl.Headers;
import io.varpulis.messaging.DeliveryMetadata;
import io.varpulis.messaging.NatsHeader;
import io.varpulis.messaging.NatsListener;
import io.varpulis.messaging.OutboundEvent;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.lang.reflect.Type;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Finds the {@link NatsListener} methods of every bean at build time, as Spring Kafka's
 * and Spring AMQP's listener processors do, and registers what calling them needs at run
 * time in a native image: each method for invocation (it is called reflectively, see
 * {@code NatsListenerAnnotationBeanPostProcessor}), and Jackson 2 binding of its payload
 * parameter's type (a {@code List<T>}'s, a {@code Message<T>}'s) and of the type it
 * returns to {@code sendTo} (a {@code CompletionStage}'s value included; records and
 * their components, POJOs and their properties, generics resolved). Registered in
 * {@code META-INF/spring/aot.factories}.
 */
public class NatsListenerBeanRegistrationAotProcessor implements BeanRegistrationAotProcessor {

    /**
     * @param registeredBean a bean definition, processed ahead of time
     * @return the hints of its listener methods, or {@code null} when it has none
     */
    @Override
    public BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
        Class<?> type = ClassUtils.getUserClass(registeredBean.getBeanClass());
        Set<Method> methods = MethodIntrospector
            .selectMethods(type,
                    (MethodIntrospector.MetadataLookup<NatsListener>) method -> AnnotatedElementUtils
                        .findMergedAnnotation(method, NatsListener.class))
            .keySet();
        if (methods.isEmpty()) {
            return null;
        }
        return (generationContext, beanRegistrationCode) -> register(generationContext.getRuntimeHints().reflection(),
                methods);
    }

    /**
     * @param reflection where the hints go
     * @param methods the listener methods of one bean
     */
    static void register(ReflectionHints reflection, Set<Method> methods) {
        Set<Type> bound = new LinkedHashSet<>();
        for (Method method : methods) {
            reflection.registerMethod(method, ExecutableMode.INVOKE);
            for (Parameter parameter : method.getParameters()) {
                if (!parameter.isAnnotationPresent(NatsHeader.class) && !parameter.isAnnotationPresent(Header.class)
                        && !parameter
                            .isAnnotationPresent(org.springframework.messaging.handler.annotation.Headers.class)
                        && parameter.getType() != Headers.class && parameter.getType() != DeliveryMetadata.class) {
                    bound.add(parameter.getParameterizedType());
                }
            }
            Class<?> returned = method.getReturnType();
            if (returned != void.class && returned != Void.class && !OutboundEvent.class.isAssignableFrom(returned)) {
                bound.add(method.getGenericReturnType());
            }
        }
        new BindingReflectionHintsRegistrar().registerReflectionHints(reflection, bound.toArray(Type[]::new));
    }

}
