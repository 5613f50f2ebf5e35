package io.varpulis.demo;

import io.varpulis.pipeline.KeyValueState;
import io.varpulis.pipeline.ProcessingContext;

/**
 * A delivery as the route ingress would describe it, for tests of the {@code ssh-bruteforce} processors.
 *
 * @param messageId the input's stable id
 * @param attempt   the delivery attempt, 1 for the first
 * @param state     the pipeline's state
 */
record TestContext(String messageId, long attempt, KeyValueState state) implements ProcessingContext {

    static TestContext first(String messageId, KeyValueState state) {
        return new TestContext(messageId, 1, state);
    }

    @Override
    public String group() {
        return "ssh-bruteforce";
    }

    @Override
    public String pipeline() {
        return "test";
    }
}
