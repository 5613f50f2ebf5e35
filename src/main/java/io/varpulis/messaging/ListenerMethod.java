package io.varpulis.messaging;

import io.nats.client.impl.Headers;
import io.varpulis.transport.Delivery;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.lang.reflect.Type;

/**
 * A {@link NatsListener} method bound to its bean, with each parameter's source decided
 * once, at startup.
 */
final class ListenerMethod {

    /** Where one parameter's argument comes from, decided once. */
    private enum Source {

        PAYLOAD, HEADER, HEADERS, METADATA

    }

    private final Object bean;

    private final Method method;

    private final Source[] sources;

    private final String[] headerNames;

    private final Type payloadType;

    private ListenerMethod(Object bean, Method method, Type payloadType) {
        this.bean = bean;
        this.method = method;
        Parameter[] parameters = method.getParameters();
        this.sources = new Source[parameters.length];
        this.headerNames = new String[parameters.length];
        for (int i = 0; i < parameters.length; i++) {
            NatsHeader header = parameters[i].getAnnotation(NatsHeader.class);
            if (header != null) {
                sources[i] = Source.HEADER;
                headerNames[i] = header.value();
            }
            else if (parameters[i].getType() == Headers.class) {
                sources[i] = Source.HEADERS;
            }
            else if (parameters[i].getType() == DeliveryMetadata.class) {
                sources[i] = Source.METADATA;
            }
            else {
                sources[i] = Source.PAYLOAD;
            }
        }
        this.payloadType = payloadType;
        method.setAccessible(true);
    }

    /**
     * @param bean the bean
     * @param method its annotated method
     * @return the binding
     * @throws IllegalStateException naming the method, when it has more than one payload
     * parameter or a {@link NatsHeader} parameter that is not a {@code String}
     */
    static ListenerMethod of(Object bean, Method method) {
        Type payload = null;
        for (Parameter parameter : method.getParameters()) {
            if (parameter.isAnnotationPresent(NatsHeader.class)) {
                if (parameter.getType() != String.class) {
                    throw new IllegalStateException("@NatsListener method " + name(method) + ": @NatsHeader parameter "
                            + parameter.getName() + " must be a String, not " + parameter.getType().getSimpleName());
                }
            }
            else if (parameter.getType() != Headers.class && parameter.getType() != DeliveryMetadata.class) {
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
     * @param converter converts payloads
     * @return the reader of this method's payload parameter, resolved once (none: a
     * reader that is never called); a converter bean that overrides
     * {@link PayloadConverter#read} but not {@link PayloadConverter#reader} is called
     * through its {@code read} on every payload, so its conversion (and its choice to
     * refuse a payload) still applies
     */
    PayloadConverter.Reader payloadReader(PayloadConverter converter) {
        if (payloadType == null) {
            return data -> null;
        }
        if (overrides(converter, "read", byte[].class, Type.class) && !overrides(converter, "reader", Type.class)) {
            return data -> converter.read(data, payloadType);
        }
        return converter.reader(payloadType);
    }

    private static boolean overrides(PayloadConverter converter, String name, Class<?>... parameters) {
        try {
            return converter.getClass().getMethod(name, parameters).getDeclaringClass() != PayloadConverter.class;
        }
        catch (NoSuchMethodException e) {
            return false;
        }
    }

    /**
     * @param delivery the delivery
     * @param payload reads the payload, from {@link #payloadReader}
     * @return the arguments of one call
     * @throws IOException when the payload cannot be converted into the parameter's type
     */
    Object[] arguments(Delivery delivery, PayloadConverter.Reader payload) throws IOException {
        Object[] arguments = new Object[sources.length];
        for (int i = 0; i < sources.length; i++) {
            arguments[i] = switch (sources[i]) {
                case HEADER -> delivery.headers() == null ? null : delivery.headers().getLast(headerNames[i]);
                case HEADERS -> delivery.headers() == null ? new Headers() : delivery.headers();
                case METADATA -> DeliveryMetadata.of(delivery);
                case PAYLOAD -> payload.read(delivery.data());
            };
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
        }
        catch (InvocationTargetException e) {
            if (e.getCause() instanceof Exception thrown) {
                throw thrown;
            }
            throw e;
        }
    }

    @Override
    public String toString() {
        return name(method);
    }

    private static String name(Method method) {
        return method.getDeclaringClass().getSimpleName() + "." + method.getName();
    }

}
