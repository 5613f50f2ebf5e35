package io.varpulis.messaging;

import io.nats.client.impl.Headers;
import io.varpulis.transport.Delivery;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.lang.reflect.Type;

/**
 * A {@link NatsListener} method bound to its bean, with each parameter's source decided once, at startup.
 */
final class ListenerMethod {

    private final Object bean;
    private final Method method;
    private final Parameter[] parameters;
    private final Type payloadType;

    private ListenerMethod(Object bean, Method method, Type payloadType) {
        this.bean = bean;
        this.method = method;
        this.parameters = method.getParameters();
        this.payloadType = payloadType;
        method.setAccessible(true);
    }

    /**
     * @param bean   the bean
     * @param method its annotated method
     * @return the binding
     * @throws IllegalStateException naming the method, when it has more than one payload parameter or a
     *                               {@link NatsHeader} parameter that is not a {@code String}
     */
    static ListenerMethod of(Object bean, Method method) {
        Type payload = null;
        for (Parameter parameter : method.getParameters()) {
            if (parameter.isAnnotationPresent(NatsHeader.class)) {
                if (parameter.getType() != String.class) {
                    throw new IllegalStateException("@NatsListener method " + name(method) + ": @NatsHeader parameter "
                            + parameter.getName() + " must be a String, not " + parameter.getType().getSimpleName());
                }
            } else if (parameter.getType() != Headers.class && parameter.getType() != DeliveryMetadata.class) {
                if (payload != null) {
                    throw new IllegalStateException("@NatsListener method " + name(method) + " has two payload "
                            + "parameters; annotate headers with @NatsHeader, or take Headers or DeliveryMetadata");
                }
                payload = parameter.getParameterizedType();
            }
        }
        return new ListenerMethod(bean, method, payload);
    }

    /**
     * @param delivery  the delivery
     * @param converter converts the payload
     * @return the arguments of one call
     * @throws IOException when the payload cannot be converted into the parameter's type
     */
    Object[] arguments(Delivery delivery, PayloadConverter converter) throws IOException {
        Object[] arguments = new Object[parameters.length];
        for (int i = 0; i < parameters.length; i++) {
            Parameter parameter = parameters[i];
            NatsHeader header = parameter.getAnnotation(NatsHeader.class);
            if (header != null) {
                arguments[i] = delivery.headers() == null ? null : delivery.headers().getLast(header.value());
            } else if (parameter.getType() == Headers.class) {
                arguments[i] = delivery.headers() == null ? new Headers() : delivery.headers();
            } else if (parameter.getType() == DeliveryMetadata.class) {
                arguments[i] = DeliveryMetadata.of(delivery);
            } else {
                arguments[i] = converter.read(delivery.data(), payloadType);
            }
        }
        return arguments;
    }

    /**
     * @param arguments from {@link #arguments}
     * @return what the method returned
     * @throws Exception what the method threw
     */
    Object invoke(Object[] arguments) throws Exception {
        try {
            return method.invoke(bean, arguments);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof Exception thrown) {
                throw thrown;
            }
            throw e;
        }
    }

    /**
     * @return whether the method returns something to publish
     */
    boolean returnsValue() {
        return method.getReturnType() != void.class && method.getReturnType() != Void.class;
    }

    /**
     * @return whether every value the method returns says its own subject
     */
    boolean returnsOutboundEvent() {
        return OutboundEvent.class.isAssignableFrom(method.getReturnType());
    }

    @Override
    public String toString() {
        return name(method);
    }

    private static String name(Method method) {
        return method.getDeclaringClass().getSimpleName() + "." + method.getName();
    }
}
