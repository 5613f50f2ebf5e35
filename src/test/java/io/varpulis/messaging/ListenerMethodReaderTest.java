package io.varpulis.messaging;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A listener resolves its payload's reader once, yet a {@link PayloadConverter} bean that
 * overrides only {@link PayloadConverter#read} (as the README invites) still converts
 * every payload, and still refuses the ones it refuses (the listener parks those on
 * delivery 1).
 */
class ListenerMethodReaderTest {

    record Command(String id) {
    }

    static class Handler {

        void on(Command command) {
        }

    }

    @Test
    void aConverterThatOverridesOnlyReadIsCalledForEveryPayload() throws Exception {
        PayloadConverter strict = new PayloadConverter(new ObjectMapper()) {
            @Override
            public Object read(byte[] data, Type type) throws IOException {
                if (new String(data, StandardCharsets.UTF_8).contains("forbidden")) {
                    throw new IOException("refused by the service's converter");
                }
                return super.read(data, type);
            }
        };
        ListenerMethod method = ListenerMethod.of(new Handler(), Handler.class.getDeclaredMethod("on", Command.class));

        PayloadConverter.Reader reader = method.payloadReader(strict);

        assertThat(reader.read("{\"id\":\"tc-1\"}".getBytes(StandardCharsets.UTF_8))).isEqualTo(new Command("tc-1"));
        assertThatThrownBy(() -> reader.read("{\"id\":\"forbidden\"}".getBytes(StandardCharsets.UTF_8)))
            .isInstanceOf(IOException.class)
            .hasMessageContaining("refused by the service's converter");
    }

    @Test
    void theDefaultConverterIsResolvedOnce() throws Exception {
        ListenerMethod method = ListenerMethod.of(new Handler(), Handler.class.getDeclaredMethod("on", Command.class));

        PayloadConverter.Reader reader = method.payloadReader(new PayloadConverter(new ObjectMapper()));

        assertThat(reader.read("{\"id\":\"tc-2\"}".getBytes(StandardCharsets.UTF_8))).isEqualTo(new Command("tc-2"));
    }

}
