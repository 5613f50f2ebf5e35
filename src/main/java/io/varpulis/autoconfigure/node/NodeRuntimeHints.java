package io.varpulis.autoconfigure.node;

import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.PipelineGroupSpec;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * The reflection the node needs in an AOT-processed application: Jackson 2 binding of the
 * routed events (SPEC section 6) and pipeline groups it reads and writes. Imported by
 * {@link ClusterAutoConfiguration}; the library's own are
 * {@code io.varpulis.aot.VarpulisRuntimeHints}'s.
 */
public class NodeRuntimeHints implements RuntimeHintsRegistrar {

    /**
     * @param hints where the hints go
     * @param classLoader the application's class loader
     */
    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), Event.class,
                PipelineGroupSpec.class);
    }

}
