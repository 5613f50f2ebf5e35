package io.varpulis.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.varpulis.jetstream.ServerSyncCheck;

/**
 * {@code varpulis.jetstream.sync.always}: 1 when every nats-server checked syncs every
 * write before acknowledging it ({@code sync_interval: always}), 0 when one does not
 * (acknowledged events can be lost on a power loss of every server), -1 when not known
 * ({@link ServerSyncCheck}).
 */
public class ServerSyncGauge implements MeterBinder {

    /** The gauge's name. */
    public static final String NAME = "varpulis.jetstream.sync.always";

    private final ServerSyncCheck check;

    /**
     * @param check the check whose last answer the gauge reads
     */
    public ServerSyncGauge(ServerSyncCheck check) {
        this.check = check;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder(NAME, check, c -> c.current().gauge())
            .description("1: every nats-server checked syncs every write; 0: one does not; -1: unknown")
            .register(registry);
    }

}
