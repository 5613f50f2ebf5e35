package io.varpulis.pipeline;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class InMemoryKeyValueStateTest {

    private final InMemoryKeyValueState state = new InMemoryKeyValueState();

    @Test
    void putGetDelete() {
        state.put("bf.1796886600.5_36_59_76", bytes("{}"));

        assertThat(state.get("bf.1796886600.5_36_59_76")).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("{}")));
        state.delete("bf.1796886600.5_36_59_76");
        state.delete("bf.1796886600.5_36_59_76");
        assertThat(state.get("bf.1796886600.5_36_59_76")).isEmpty();
    }

    @Test
    void storedValuesAreCopies() {
        byte[] value = bytes("a");
        state.put("k", value);
        value[0] = 'b';
        state.get("k").orElseThrow()[0] = 'c';

        assertThat(state.get("k")).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("a")));
    }

    @Test
    void keysFollowTheNatsKeyValueRule() {
        state.put("a-b_c=d/e.F9", bytes("x"));

        for (String bad : new String[] { "", ".a", "a.", "a..b", "a b", "a:b", "a*", "a>" }) {
            assertThatThrownBy(() -> state.put(bad, bytes("x"))).as(bad)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("invalid state key");
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

}
