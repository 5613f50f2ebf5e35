package io.varpulis.bruteforce;

import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.KeyValueState;
import io.varpulis.pipeline.ProcessingContext;

import java.util.ArrayList;
import java.util.List;

/**
 * A delivery as the route ingress would describe it, for tests of the
 * {@code ssh-bruteforce} processors.
 *
 * @param messageId the input's stable id
 * @param attempt the delivery attempt, 1 for the first
 * @param state the pipeline's state
 */
record TestContext(String messageId, long attempt, KeyValueState state,
        List<Event> parked) implements ProcessingContext {

    TestContext(String messageId, long attempt, KeyValueState state) {
        this(messageId, attempt, state, new ArrayList<>());
    }

    static TestContext first(String messageId, KeyValueState state) {
        return new TestContext(messageId, 1, state);
    }

    /** Records the element; {@link #parked()} lists them in order. */
    @Override
    public void park(int index, Event element, String reason) {
        parked.add(element);
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
