package io.varpulis.messaging;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;

/**
 * Converts payloads with Jackson 2 (SPEC section 13): a {@code byte[]} is passed as is, a {@code String} as UTF-8
 * text, anything else (a record, a POJO, {@code JsonNode}, a generic collection) is read from or written as JSON.
 */
public class PayloadConverter {

    private final ObjectMapper mapper;

    /**
     * @param mapper the Jackson 2 mapper (its modules and features decide the JSON shapes)
     */
    public PayloadConverter(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /**
     * @param data the payload bytes
     * @param type the target type (a method parameter's generic type)
     * @return the converted payload
     * @throws IOException when the bytes are not JSON of that type (the listener parks such a payload at once)
     */
    public Object read(byte[] data, Type type) throws IOException {
        if (type == byte[].class) {
            return data;
        }
        if (type == String.class) {
            return new String(data, StandardCharsets.UTF_8);
        }
        JavaType javaType = mapper.getTypeFactory().constructType(type);
        Object value = mapper.readValue(data, javaType);
        if (value == null) {
            throw new IOException("the payload is JSON null, not " + javaType.getTypeName());
        }
        return value;
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
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write a " + payload.getClass().getName() + " as JSON: "
                    + e.getOriginalMessage(), e);
        }
    }
}
