package io.varpulis.messaging;

import io.nats.client.impl.Headers;
import io.varpulis.transport.Delivery;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.converter.SmartMessageConverter;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Payload;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;
import org.springframework.messaging.support.GenericMessage;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * A {@link NatsListener} method bound with Spring Messaging ({@link ListenerMethods}),
 * with what each call needs decided once, at startup: whether it reads headers (a
 * {@code Message<T>}, {@code @Header}, {@code @Headers}, {@link NatsHeader}: only then
 * are they copied into the message), whether it takes {@link DeliveryMetadata} or the
 * NATS {@link Headers}, and, for a batch method, how one element is converted.
 */
final class ListenerMethod {

    private final Method method;

    private final InvocableHandlerMethod handler;

    private final SmartMessageConverter converter;

    private final boolean readsHeaders;

    private final boolean takesMetadata;

    private final boolean takesNatsHeaders;

    private final boolean batch;

    /**
     * A batch method's element parameter ({@code T} of {@code List<T>}), or {@code null}.
     */
    private final MethodParameter element;

    private final boolean elementsAreMessages;

    ListenerMethod(Object bean, Method method, boolean batch, InvocableHandlerMethod handler,
            SmartMessageConverter converter, boolean converterReadsHeaders) {
        this.method = method;
        this.handler = handler;
        this.converter = converter;
        this.batch = batch;
        boolean headers = false;
        boolean metadata = false;
        boolean natsHeaders = false;
        MethodParameter payload = null;
        for (int i = 0; i < method.getParameterCount(); i++) {
            MethodParameter parameter = new MethodParameter(method, i);
            Class<?> type = parameter.getParameterType();
            Parameter declared = method.getParameters()[i];
            if (type == DeliveryMetadata.class) {
                metadata = true;
            }
            else if (type == Headers.class) {
                natsHeaders = true;
            }
            else if (declared.isAnnotationPresent(NatsHeader.class)) {
                if (type != String.class) {
                    throw new IllegalStateException("its @NatsHeader parameter " + declared.getName()
                            + " must be a String, not " + type.getSimpleName());
                }
                headers = true;
            }
            else if (Message.class.isAssignableFrom(type)) {
                headers = true;
            }
            else if (isPayload(parameter)) {
                if (payload != null) {
                    throw new IllegalStateException("it has two payload parameters; annotate headers with @Header or "
                            + "@NatsHeader, or take Message<T>, Headers or DeliveryMetadata");
                }
                payload = parameter;
            }
            else {
                headers = true;
            }
        }
        this.readsHeaders = headers || converterReadsHeaders;
        this.takesMetadata = metadata;
        this.takesNatsHeaders = natsHeaders;
        if (batch) {
            if (payload == null || payload.getParameterType() != List.class || metadata || natsHeaders || headers) {
                throw new IllegalStateException(
                        "a batch listener (batch = true) takes one parameter, List<T> or List<Message<T>>");
            }
            if (returnsValue()) {
                throw new IllegalStateException("a batch listener (batch = true) returns void (or a CompletionStage "
                        + "of Void): a batch has no one reply");
            }
            MethodParameter nested = payload.nested();
            this.elementsAreMessages = Message.class.isAssignableFrom(nested.getNestedParameterType());
            this.element = elementsAreMessages ? nested.nested() : nested;
        }
        else {
            this.element = null;
            this.elementsAreMessages = false;
        }
    }

    private static boolean isPayload(MethodParameter parameter) {
        return parameter.hasParameterAnnotation(Payload.class) || !parameter.hasParameterAnnotation(Header.class)
                && !parameter.hasParameterAnnotation(org.springframework.messaging.handler.annotation.Headers.class)
                && !MessageHeaders.class.isAssignableFrom(parameter.getParameterType());
    }

    /**
     * Calls the method with one delivery's arguments.
     * @param delivery the delivery
     * @return what the method returned
     * @throws MessageConversionException when the payload cannot be converted
     * @throws Exception what the method (or an argument's resolution) threw
     */
    Object invoke(Delivery delivery) throws Exception {
        return handler.invoke(NatsMessages.of(delivery, readsHeaders), provided(delivery));
    }

    /**
     * Converts one element of a batch.
     * @param delivery the element's delivery
     * @return the element: its payload converted, or a {@code Message} of it
     * @throws MessageConversionException when the payload cannot be converted
     */
    Object element(Delivery delivery) {
        Message<byte[]> message = NatsMessages.of(delivery, elementsAreMessages || readsHeaders);
        Object payload = converter.fromMessage(message, element.getNestedParameterType(), element);
        if (payload == null) {
            throw new MessageConversionException(message,
                    "cannot convert the payload into " + element.getNestedGenericParameterType().getTypeName());
        }
        return elementsAreMessages ? new GenericMessage<>(payload, message.getHeaders()) : payload;
    }

    /**
     * Calls a batch method.
     * @param elements the elements, from {@link #element}
     * @return what it returned ({@code null}, or a stage)
     * @throws Exception what it threw
     */
    Object invokeBatch(List<Object> elements) throws Exception {
        return handler.invoke(NatsMessages.EMPTY, elements);
    }

    private Object[] provided(Delivery delivery) {
        if (!takesMetadata && !takesNatsHeaders) {
            return NO_ARGUMENTS;
        }
        if (!takesNatsHeaders) {
            return new Object[] { DeliveryMetadata.of(delivery) };
        }
        Headers headers = delivery.headers() == null ? new Headers() : delivery.headers();
        return takesMetadata ? new Object[] { DeliveryMetadata.of(delivery), headers } : new Object[] { headers };
    }

    private static final Object[] NO_ARGUMENTS = {};

    /**
     * @return whether it takes a batch
     */
    boolean batch() {
        return batch;
    }

    /**
     * @return whether it returns something to publish (a {@code CompletionStage}'s value
     * included)
     */
    boolean returnsValue() {
        Class<?> type = valueType();
        return type != void.class && type != Void.class;
    }

    /**
     * @return what its calls return: the value of a {@code CompletionStage}, else the
     * return type
     */
    private Class<?> valueType() {
        ResolvableType returned = ResolvableType.forMethodReturnType(method);
        if (CompletionStage.class.isAssignableFrom(returned.toClass())) {
            Class<?> value = returned.as(CompletionStage.class).getGeneric(0).resolve(Object.class);
            return value;
        }
        return returned.toClass();
    }

    @Override
    public String toString() {
        return method.getDeclaringClass().getSimpleName() + "." + method.getName();
    }

}
