package io.varpulis.bench;

import io.varpulis.bruteforce.SshLogIngressProcessor;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventBatch;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.pipeline.InMemoryKeyValueState;
import io.varpulis.pipeline.KeyValueState;
import io.varpulis.pipeline.ProcessingContext;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What the main job's {@code ingress} spends on the first 500 lines of the bundled sample, per 500
 * lines, in a warm JVM: decoded from one {@code SshLogLines} batch, parsed, and its failures encoded as one
 * {@code SshAuthFailures} batch ({@code batch}), against the same lines as 500 {@code SshLogLine} messages, each
 * decoded, parsed and its failure encoded alone ({@code perLine}). The wire's costs (store, deliver, PubAck, ack)
 * come on top, once per message.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class IngressBatchBenchmark {

    private static final int LINES = 500;

    private final EventCodec codec = new EventCodec();
    private final SshLogIngressProcessor ingress = new SshLogIngressProcessor(2026);
    private final ProcessingContext context = new Context();
    private final List<byte[]> singles = new ArrayList<>();
    private final byte[] batch;

    public IngressBatchBenchmark() {
        List<Event> lines = new ArrayList<>();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(
                IngressBatchBenchmark.class.getResourceAsStream("/sample/OpenSSH_2k.log"), StandardCharsets.UTF_8))) {
            for (int i = 1; i <= LINES; i++) {
                Event line = Event.of("SshLogLine", Map.of("line", reader.readLine(), "line_number", i,
                        "year", 2026));
                lines.add(line);
                singles.add(codec.encode(line));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        batch = codec.encode(EventBatch.of("SshLogLines", lines));
    }

    @Benchmark
    public void batch(Blackhole sink) throws Exception {
        for (Event out : ingress.process(codec.decode(batch), context)) {
            sink.consume(codec.encode(out));
        }
    }

    @Benchmark
    public void perLine(Blackhole sink) throws Exception {
        for (byte[] single : singles) {
            for (Event out : ingress.process(codec.decode(single), context)) {
                sink.consume(codec.encode(out));
            }
        }
    }

    /** A first delivery that parks nothing (the sample's first 500 lines all parse). */
    private static final class Context implements ProcessingContext {
        private final KeyValueState state = new InMemoryKeyValueState();

        @Override
        public String group() {
            return "ssh-bruteforce";
        }

        @Override
        public String pipeline() {
            return "ingress";
        }

        @Override
        public String messageId() {
            return "bench";
        }

        @Override
        public long attempt() {
            return 1;
        }

        @Override
        public KeyValueState state() {
            return state;
        }

        @Override
        public void park(int index, Event element, String reason) {
            throw new IllegalStateException("the benchmark's lines all parse: " + reason);
        }
    }
}
