package io.varpulis.messaging;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;

import java.io.IOException;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;

/**
 * Converts payloads with Jackson 2 (SPEC section 13): a {@code byte[]} is passed as is, a
 * {@code String} as UTF-8 text, anything else (a record, a POJO, {@code JsonNode}, a
 * generic collection) is read from or written as JSON.
 */
public class PayloadConverter {

    private final ObjectMapper mapper;

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
        return reader(type).read(data);
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
