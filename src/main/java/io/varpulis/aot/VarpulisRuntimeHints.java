package io.varpulis.aot;

import io.varpulis.dlq.DeathEnvelope;
import io.varpulis.jetstream.eviction.EvictionLedger;
import io.varpulis.dlq.DeadLetterPage;
import io.varpulis.autoconfigure.DeadLetterProperties;
import io.varpulis.dlq.ParkedEvent;
import io.varpulis.dlq.PurgeReport;
import io.varpulis.dlq.ReplayReport;
import io.varpulis.dlq.ReplayRequest;
import io.varpulis.autoconfigure.LeaderReachProperties;
import io.varpulis.autoconfigure.NatsListenerProperties;
import io.varpulis.nats.SubstrateEditor;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;

import java.util.List;

/**
 * The reflection the library itself needs in a native image or an AOT-processed
 * application (SPEC section 13), registered through
 * {@code META-INF/spring/aot.factories}: Jackson 2 binding of the JSON records it reads
 * and writes (death envelopes, the DLQ console's pages and reports, the eviction ledger's
 * pages), and the binding of its {@code @ConfigurationProperties} with their nested types
 * (those of {@code varpulis.nats.*} are
 * {@code io.varpulis.autoconfigure.NatsPropertiesRuntimeHints}'s) and the
 * {@link SubstrateEditor}. A service's own listener methods and payload types are
 * {@link NatsListenerBeanRegistrationAotProcessor}'s.
 */
public class VarpulisRuntimeHints implements RuntimeHintsRegistrar {

    /**
     * Read and written with Jackson 2 by the library, each with the types of its
     * components.
     */
    static final List<Class<?>> JSON_TYPES = List.of(DeathEnvelope.class, ParkedEvent.class, DeadLetterPage.class,
            ReplayRequest.class, ReplayReport.class, PurgeReport.class, EvictionLedger.Page.class);

    /** Bound from {@code varpulis.*}. */
    static final List<Class<?>> PROPERTIES = List.of(NatsListenerProperties.class, LeaderReachProperties.class,
            DeadLetterProperties.class);

    /**
     * @param hints where the hints go
     * @param classLoader the application's class loader
     */
    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(),
                JSON_TYPES.toArray(Class<?>[]::new));
        BindableRuntimeHintsRegistrar.forTypes(PROPERTIES.toArray(Class<?>[]::new)).registerHints(hints, classLoader);
        // Found by name beside Substrate (the JavaBeans convention) and instantiated.
        hints.reflection().registerType(SubstrateEditor.class, MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS);
    }

}
