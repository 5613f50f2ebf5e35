package io.varpulis.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventCodec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * What the route ingress spends decoding one routed event of the benchmarks (200 bytes, SPEC section 6 JSON):
 * through {@link EventCodec} (a resolved reader, the timestamp's fast path), with a timestamp that takes the general
 * {@code DateTimeFormatter} path (an offset instead of {@code Z}), and through {@code ObjectMapper.readValue} as the
 * codec did before (a type lookup per call).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class EventDecodeBenchmark {

    private final EventCodec codec = new EventCodec();
    private final ObjectMapper mapper = codec.mapper();
    private final byte[] utc = Payloads.event(42);
    private final byte[] offset = new String(utc, StandardCharsets.US_ASCII).replace("12:00:00Z", "12:00:00+00:00")
            .getBytes(StandardCharsets.US_ASCII);

    @Benchmark
    public Event codecDecode() {
        return codec.decode(utc);
    }

    @Benchmark
    public Event codecDecodeOffsetTimestamp() {
        return codec.decode(offset);
    }

    @Benchmark
    public Event mapperReadValue() throws Exception {
        return mapper.readValue(utc, Event.class);
    }
}
