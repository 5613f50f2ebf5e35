package io.varpulis.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.varpulis.jetstream.JetStreamLoss;
import io.varpulis.jetstream.JetStreamLosses;

/**
 * Counts what the servers lost (SPEC section 21), as a node found it
 * ({@link JetStreamLoss}): {@code varpulis.jetstream.losses{kind,stream}}, one per loss
 * found (a stream, consumer or bucket gone, a stream gone back, a state bucket gone
 * back), and {@code varpulis.events.lost{stream}}, the messages this node published and
 * the stream acknowledged, then lost (the ERROR line names them per subject, a route
 * edge's, with their sequences).
 */
public class JetStreamLossMeters {

    /**
     * Counts every loss recorded from now on.
     * @param losses where the node records them
     * @param registry where the counters go
     */
    public JetStreamLossMeters(JetStreamLosses losses, MeterRegistry registry) {
        losses.addListener(loss -> {
            Counter.builder("varpulis.jetstream.losses")
                .description("Streams, consumers or buckets the servers lost, or streams and state that went back")
                .tag("kind", loss.kind().tag())
                .tag("stream", loss.stream())
                .register(registry)
                .increment();
            if (loss.kind() == JetStreamLoss.Kind.PUBLISHED_LOST && loss.messages() > 0) {
                Counter.builder("varpulis.events.lost")
                    .description("Messages this node published and the stream acknowledged, then lost by the servers")
                    .tag("stream", loss.stream())
                    .register(registry)
                    .increment(loss.messages());
            }
        });
    }

}
