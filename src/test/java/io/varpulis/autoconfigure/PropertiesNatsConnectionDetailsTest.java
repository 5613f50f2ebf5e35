package io.varpulis.autoconfigure;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code varpulis.nats.url} is checked before any connection attempt: a value jnats would
 * reject with a stack trace (a port that is not a number, no host, an unknown scheme)
 * fails naming the property, the value and the fix.
 */
class PropertiesNatsConnectionDetailsTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|',
            value = { "nats://127.0.0.1:notaport | port 'notaport', which is not a port number",
                    "nats://127.0.0.1:0        | port '0', which is not a port number",
                    "nats://127.0.0.1:70000    | port '70000', which is not a port number",
                    "nats://:4222              | has no host", "http://127.0.0.1:4222     | unknown scheme",
                    "nats://127.0.0.1:4222,nats://bad:x | port 'x'",
                    "' , '                     | At least one server URL is required" })
    void aBadUrlIsRefusedNamingThePropertyAndTheFix(String url, String reason) {
        NatsConnectionProperties properties = new NatsConnectionProperties();
        properties.setUrl(url);
        assertThatThrownBy(() -> new PropertiesNatsConnectionDetails(properties))
            .isInstanceOf(InvalidConfigurationPropertyValueException.class)
            .hasMessageContaining("varpulis.nats.url")
            .hasMessageContaining(reason);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "nats://localhost:4222", "tls://nats.example:4222", "127.0.0.1:4222", "nats://nats",
            "nats://[::1]:4222", "nats://user:secret@localhost:4222", "nats://a:4222, nats://b:4222 ,nats://c:4222" })
    void goodUrlsAreAccepted(String url) {
        NatsConnectionProperties properties = new NatsConnectionProperties();
        properties.setUrl(url);
        assertThat(new PropertiesNatsConnectionDetails(properties).getServers()).isNotEmpty()
            .allSatisfy(server -> assertThat(server).isEqualTo(server.trim()));
    }

}
