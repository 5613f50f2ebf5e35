package io.varpulis.autoconfigure;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;

import java.util.List;

/**
 * The binding of {@code varpulis.nats.*}'s properties classes, with their nested types,
 * in a native image or an AOT-processed application; registered through
 * {@code META-INF/spring/aot.factories} beside the library's other hints
 * ({@code io.varpulis.aot.VarpulisRuntimeHints}), here because the properties classes are
 * the auto-configuration's.
 */
public class NatsPropertiesRuntimeHints implements RuntimeHintsRegistrar {

    /** Bound from {@code varpulis.nats.*}, one class per concern. */
    static final List<Class<?>> PROPERTIES = List.of(NatsConnectionProperties.class, JetStreamPublishProperties.class,
            JetStreamConsumerProperties.class, JetStreamStreamsProperties.class, JetStreamHealthProperties.class,
            JetStreamDurabilityProperties.class);

    /**
     * @param hints where the hints go
     * @param classLoader the application's class loader
     */
    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        BindableRuntimeHintsRegistrar.forTypes(PROPERTIES.toArray(Class<?>[]::new)).registerHints(hints, classLoader);
    }

}
