package io.varpulis.messaging;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Finds the {@link NatsListener} methods of every bean, as Spring Kafka's
 * {@code KafkaListenerAnnotationBeanPostProcessor} does;
 * {@link NatsListenerEndpointRegistry} starts them once the context is refreshed. Depends
 * on nothing, so that it can be created before every other bean.
 */
public class NatsListenerAnnotationBeanPostProcessor implements BeanPostProcessor {

    private final List<AnnotatedListener> found = new CopyOnWriteArrayList<>();

    /**
     * A method found.
     *
     * @param bean the bean (the proxy, when there is one)
     * @param method the annotated method
     * @param annotation its annotation
     */
    public record AnnotatedListener(Object bean, Method method, NatsListener annotation) {
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> type = AopUtils.getTargetClass(bean);
        Map<Method, NatsListener> methods = MethodIntrospector.selectMethods(type,
                (MethodIntrospector.MetadataLookup<NatsListener>) method -> AnnotatedElementUtils
                    .findMergedAnnotation(method, NatsListener.class));
        methods.forEach((method, annotation) -> found
            .add(new AnnotatedListener(bean, AopUtils.selectInvocableMethod(method, bean.getClass()), annotation)));
        return bean;
    }

    /**
     * @return the methods found so far, in bean creation order
     */
    public List<AnnotatedListener> listeners() {
        return List.copyOf(found);
    }

}
