package io.varpulis.pipeline;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One apply's writes: the processor reads them at once, the state sees them only when the
 * apply returned, and an apply that throws leaves nothing behind.
 */
class StateTransactionTest {

    private final InMemoryKeyValueState state = new InMemoryKeyValueState();

    @Test
    void stagedWritesAreReadAtOnce_andReachTheStateOnlyOnCommit() throws Exception {
        state.put("kept", bytes("before"));
        state.put("gone", bytes("x"));
        StateTransaction apply = new StateTransaction(state);

        apply.put("new", bytes("1"));
        apply.put("kept", bytes("after"));
        apply.delete("gone");

        assertThat(apply.get("new")).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("1")));
        assertThat(apply.get("kept")).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("after")));
        assertThat(apply.get("gone")).isEmpty();
        assertThat(state.get("new")).isEmpty();
        assertThat(state.get("kept")).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("before")));

        apply.commit().get();

        assertThat(state.get("new")).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("1")));
        assertThat(state.get("kept")).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("after")));
        assertThat(state.get("gone")).isEmpty();
    }

    @Test
    void aDiscardedApplyLeavesNothingBehind() {
        StateTransaction apply = new StateTransaction(state);
        apply.put("k", bytes("v"));
        apply.discard();

        assertThat(state.get("k")).isEmpty();
        assertThat(apply.get("k")).isEmpty();
    }

    @Test
    void keysAreCheckedWhenWritten_andTheStatesOwnKeysAreReserved() {
        StateTransaction apply = new StateTransaction(state);

        assertThatThrownBy(() -> apply.put("a b", bytes("x"))).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("invalid state key");
        assertThatThrownBy(() -> apply.put(KeyValueState.RESERVED_PREFIX + "fence", bytes("x")))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("reserved");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

}
