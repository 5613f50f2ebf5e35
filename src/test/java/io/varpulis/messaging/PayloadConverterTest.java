package io.varpulis.messaging;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.springframework.core.MethodParameter;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.support.GenericMessage;

import java.io.IOException;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The payload converter as Spring Messaging calls it for a listener's parameter: the
 * parameter's generic type from the hint, a refusal as a
 * {@link MessageConversionException} (the listener parks those on delivery 1), and a
 * converter bean that overrides only {@link PayloadConverter#read} (as the README
 * invites) still called for every payload.
 */
class PayloadConverterTest {

    record Command(String id) {
    }

    static class Handler {

        void on(List<Command> commands) {
        }

    }

    private static GenericMessage<byte[]> message(String json) {
        return new GenericMessage<>(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void readsTheParametersGenericType() throws Exception {
        MethodParameter parameter = new MethodParameter(Handler.class.getDeclaredMethod("on", List.class), 0);
        Object commands = new PayloadConverter(new ObjectMapper())
            .fromMessage(message("[{\"id\":\"a\"},{\"id\":\"b\"}]"), List.class, parameter);
        assertThat(commands).isEqualTo(List.of(new Command("a"), new Command("b")));
    }

    @Test
    void aPayloadThatIsNotJsonOfTheTypeIsAConversionFailure() {
        assertThatThrownBy(
                () -> new PayloadConverter(new ObjectMapper()).fromMessage(message("{not json"), Command.class))
            .isInstanceOf(MessageConversionException.class)
            .hasMessageContaining(Command.class.getName());
    }

    @Test
    void aConverterThatOverridesOnlyReadIsCalledForEveryPayload() {
        PayloadConverter strict = new PayloadConverter(new ObjectMapper()) {
            @Override
            public Object read(byte[] data, Type type) throws IOException {
                if (new String(data, StandardCharsets.UTF_8).contains("forbidden")) {
                    throw new IOException("refused by the service's converter");
                }
                return super.read(data, type);
            }
        };
        assertThat(strict.fromMessage(message("{\"id\":\"tc-1\"}"), Command.class)).isEqualTo(new Command("tc-1"));
        assertThatThrownBy(() -> strict.fromMessage(message("{\"id\":\"forbidden\"}"), Command.class))
            .isInstanceOf(MessageConversionException.class)
            .hasMessageContaining("refused by the service's converter");
    }

}
