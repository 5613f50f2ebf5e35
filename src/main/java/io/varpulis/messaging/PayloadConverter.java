package io.varpulis.messaging;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;

import org.springframework.core.MethodParameter;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.converter.SmartMessageConverter;
import org.springframework.messaging.support.MessageBuilder;

import java.io.IOException;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Converts payloads with Jackson 2 (SPEC section 13): a {@code byte[]} is passed as is, a
 * {@code String} as UTF-8 text, anything else (a record, a POJO, {@code JsonNode}, a
 * generic collection) is read from or written as JSON. It is the default
 * {@link SmartMessageConverter} of the listeners' arguments (a service's own
 * {@code MessageConverter} bean replaces it there): the parameter's generic type comes
 * from the conversion hint, and the reader of each type is resolved once.
 */
public class PayloadConverter implements SmartMessageConverter {

    private final ObjectMapper mapper;

    private final Map<Type, Reader> readers = new ConcurrentHashMap<>();

    /**
     * @param mapper the Jackson 2 mapper (its modules and features decide the JSON
     * shapes)
     */
    public PayloadConverter(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /**
     * @param data the payload bytes
     * @param type the target type (a method parameter's generic type)
     * @return the converted payload
     * @throws IOException when the bytes are not JSON of that type (the listener parks
     * such a payload at once)
     */
    public Object read(byte[] data, Type type) throws IOException {
        return readers.computeIfAbsent(type, this::reader).read(data);
    }

    /**
     * Resolves the conversion into one type once, as a listener does for its payload
     * parameter at startup: Jackson's {@link ObjectReader} for the type is looked up here
     * rather than on every payload (issue 22: the listener's hop). The mapper's
     * configuration is taken as it is now; configure it before the listeners start.
     * @param type the target type (a method parameter's generic type)
     * @return reads payloads into that type, as {@link #read(byte[], Type)}
     */
    public Reader reader(Type type) {
        if (type == byte[].class) {
            return data -> data;
        }
        if (type == String.class) {
            return data -> new String(data, StandardCharsets.UTF_8);
        }
        JavaType javaType = mapper.getTypeFactory().constructType(type);
        ObjectReader reader = mapper.readerFor(javaType);
        return data -> {
            Object value = reader.readValue(data);
            if (value == null) {
                throw new IOException("the payload is JSON null, not " + javaType.getTypeName());
            }
            return value;
        };
    }

    /**
     * @param message a message whose payload is the bytes received
     * @param targetClass the parameter's class
     * @param conversionHint the parameter ({@link MethodParameter}), whose generic type
     * is read
     * @return the converted payload
     * @throws MessageConversionException when the bytes are not JSON of that type (the
     * listener parks such a payload at once, {@code undecodable})
     */
    @Override
    public Object fromMessage(Message<?> message, Class<?> targetClass, Object conversionHint) {
        Object payload = message.getPayload();
        if (!(payload instanceof byte[] data)) {
            return targetClass.isInstance(payload) ? payload : null;
        }
        Type type = conversionHint instanceof MethodParameter parameter ? payloadType(parameter) : targetClass;
        try {
            return read(data, type);
        }
        catch (IOException e) {
            throw new MessageConversionException(message,
                    "the payload is not JSON of " + type.getTypeName() + ": " + e.getMessage(), e);
        }
    }

    /** The parameter's generic type; a {@code Message<T>} parameter's {@code T}. */
    private static Type payloadType(MethodParameter parameter) {
        MethodParameter payload = Message.class.isAssignableFrom(parameter.getNestedParameterType())
                ? parameter.nested() : parameter;
        return payload.getNestedGenericParameterType();
    }

    @Override
    public Object fromMessage(Message<?> message, Class<?> targetClass) {
        return fromMessage(message, targetClass, null);
    }

    @Override
    public Message<?> toMessage(Object payload, MessageHeaders headers, Object conversionHint) {
        return toMessage(payload, headers);
    }

    @Override
    public Message<?> toMessage(Object payload, MessageHeaders headers) {
        return headers == null ? MessageBuilder.withPayload(write(payload)).build()
                : MessageBuilder.createMessage(write(payload), headers);
    }

    /** Reads payloads into one type; made by {@link #reader(Type)}. */
    @FunctionalInterface
    public interface Reader {

        /**
         * @param data the payload bytes
         * @return the converted payload, never {@code null}
         * @throws IOException when the bytes are not JSON of the type (JSON {@code null}
         * included)
         */
        Object read(byte[] data) throws IOException;

    }

    /**
     * @param payload the payload
     * @return its bytes
     * @throws IllegalArgumentException when Jackson cannot write it, naming its type
     */
    public byte[] write(Object payload) {
        if (payload instanceof byte[] bytes) {
            return bytes;
        }
        if (payload instanceof String text) {
            return text.getBytes(StandardCharsets.UTF_8);
        }
        try {
            return mapper.writeValueAsBytes(payload);
        }
        catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "cannot write a " + payload.getClass().getName() + " as JSON: " + e.getOriginalMessage(), e);
        }
    }

}
