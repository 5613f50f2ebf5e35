package io.varpulis.faults;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * The soak's own arithmetic (issue 43): its options, the log and pace for a duration,
 * least-squares slopes, which samples are judged and what is flat, the heap read from
 * jcmd, the CSV round trip. The soak itself ({@code scripts/soak.sh}) is not a test.
 */
class SoakHarnessTest {

    @Test
    void optionsTakeBothSpellingsAndNameWhatIsWrong() {
        SoakOptions defaults = SoakOptions.parse(new String[0], 99);
        assertThat(defaults.minutes()).isEqualTo(30);
        assertThat(defaults.seed()).as("the random seed when none is given").isEqualTo(99);
        assertThat(defaults.everyMin()).isEqualTo(60);
        assertThat(defaults.everyMax()).isEqualTo(180);
        assertThat(defaults.nemeses()).isEqualTo(Nemesis.NAMES);
        assertThat(defaults.repeat()).isEqualTo("scripts/soak.sh --minutes=30 --seed=99");

        SoakOptions smoke = SoakOptions
            .parse(new String[] { "--minutes", "2", "--seed=42", "--every=20-40", "--nemeses=pause,lame-duck" }, 1);
        assertThat(smoke.minutes()).isEqualTo(2);
        assertThat(smoke.seed()).isEqualTo(42);
        assertThat(smoke.nemeses()).containsExactly("pause", "lame-duck");
        assertThat(smoke.repeat())
            .isEqualTo("scripts/soak.sh --minutes=2 --seed=42 --every=20-40 --nemeses=pause,lame-duck");

        assertThatThrownBy(() -> SoakOptions.parse(new String[] { "--minutes" }, 1))
            .hasMessageContaining("needs a value");
        assertThatThrownBy(() -> SoakOptions.parse(new String[] { "--minutes=0" }, 1))
            .hasMessageContaining("--minutes must be at least 1");
        assertThatThrownBy(() -> SoakOptions.parse(new String[] { "--every=180-60" }, 1))
            .hasMessageContaining("MIN <= MAX");
        assertThatThrownBy(() -> SoakOptions.parse(new String[] { "--nemeses=meteor" }, 1))
            .hasMessageContaining("--nemeses takes some of");
        assertThatThrownBy(() -> SoakOptions.parse(new String[] { "--hours=3" }, 1)).hasMessageContaining("unknown");
    }

    @Test
    void theLogAndPaceLastTheMinutes() {
        SoakOptions thirty = SoakOptions.parse(new String[0], 1);
        assertThat(thirty.days()).as("55 lines/s for 30 min: 99 000 lines, 50 days of 2 000").isEqualTo(50);
        assertThat(thirty.paceFor(100_000)).as("100 000 lines in 1 800 s").isEqualTo(56);
        SoakOptions two = SoakOptions.parse(new String[] { "--minutes=2" }, 1);
        assertThat(two.days()).isEqualTo(4);
        assertThat(two.paceFor(8_000)).isEqualTo(67);
    }

    @Test
    void slopeIsTheLeastSquaresOnePerMinute() {
        assertThat(SoakTrend.slopePerMinute(new double[] { 0, 1, 2, 3 }, new double[] { 1, 3, 5, 7 })).isCloseTo(2.0,
                within(1e-9));
        // y = 0.5 x plus noise symmetric about the line: the noise cancels.
        assertThat(SoakTrend.slopePerMinute(new double[] { 0, 1, 2, 3, 4 }, new double[] { 1, -0.5, 2, 0.5, 3 }))
            .isCloseTo(0.5, within(1e-9));
        assertThat(SoakTrend.slopePerMinute(new double[] { 0, 1 }, new double[] { 0, 9 })).as("two points").isNaN();
        assertThat(SoakTrend.slopePerMinute(new double[] { 2, 2, 2 }, new double[] { 1, 2, 3 })).as("no spread")
            .isNaN();
    }

    @Test
    void flatIsBelowEachMetricsThreshold() {
        assertThat(SoakTrend.flat(SoakTrend.Metric.RSS, 0.99)).isTrue();
        assertThat(SoakTrend.flat(SoakTrend.Metric.RSS, -1.2)).as("falling fast is not flat either").isFalse();
        assertThat(SoakTrend.flat(SoakTrend.Metric.HEAP, 0.6)).isFalse();
        assertThat(SoakTrend.flat(SoakTrend.Metric.THREADS, 0.05)).isTrue();
        assertThat(SoakTrend.flat(SoakTrend.Metric.THREADS, 1.0 / 3)).as("a thread kept per nemesis").isFalse();
        assertThat(SoakTrend.flat(SoakTrend.Metric.FDS, 0.1)).isFalse();
        assertThat(SoakTrend.flat(SoakTrend.Metric.FDS, Double.NaN)).as("not measured: not judged").isTrue();
    }

    @Test
    void onlyTheLastTwentyMinutesAfterWarmUpAreJudged() {
        List<SoakSample> samples = new ArrayList<>();
        for (int i = 0; i <= 180; i++) {
            double minute = i / 6.0; // every 10 s for 30 minutes
            // worker-1 lives the whole run: RSS grows fast in its first 10 minutes, then
            // stays; its threads grow one every 5 minutes throughout.
            samples.add(new SoakSample(minute, "worker-1", 100, -1, (long) (200_000 + 1024 * 5 * Math.min(minute, 10)),
                    40 + (int) (minute / 5), 15, i % 6 == 0 ? 60_000 : -1));
            // worker-2 was restarted at minute 22: too short in the window to be judged.
            if (minute >= 22) {
                samples
                    .add(new SoakSample(minute, "worker-2", 200, 22, 300_000 + (long) (minute * 10_000), 40, 15, -1));
            }
        }
        List<SoakTrend.Judged> judged = SoakTrend.judge(samples);
        assertThat(judged).extracting(SoakTrend.Judged::series).containsExactly("worker-1@100", "worker-2@200");
        SoakTrend.Judged longLived = judged.get(0);
        assertThat(longLived.judged()).isTrue();
        assertThat(longLived.fromMinute()).as("the last 20 minutes").isCloseTo(10, within(0.01));
        assertThat(longLived.fits().get(SoakTrend.Metric.RSS).slope()).as("flat after minute 10")
            .isCloseTo(0, within(1e-9));
        assertThat(longLived.fits().get(SoakTrend.Metric.HEAP).points()).as("heap once a minute").isEqualTo(21);
        assertThat(longLived.fits().get(SoakTrend.Metric.THREADS).slope()).isCloseTo(0.2, within(0.02));
        assertThat(longLived.flat()).as("threads +0.2/min").isFalse();
        SoakTrend.Judged restarted = judged.get(1);
        assertThat(restarted.fromMinute()).as("after its warm-up").isCloseTo(25, within(0.01));
        assertThat(restarted.judged()).isFalse();
        assertThat(restarted.flat()).as("not judged").isTrue();
        assertThat(SoakTrend.table(judged)).contains("| worker-1@100 | 10.0-30.0 |", "NOT FLAT", "not judged");
    }

    @Test
    void heapAfterGcIsTheGenerationsUsed() {
        String serial = """
                1984:
                 def new generation   total 78656K, used 1000K [0x00000000f0000000, 0x00000000f5550000)
                  eden space 69952K,   0% used [0x00000000f0000000, 0x00000000f0000000, 0x00000000f4450000)
                 tenured generation   total 174784K, used 2240K [0x00000000f5550000, 0x0000000100000000)
                 Metaspace       used 8928K, committed 9088K, reserved 1114112K
                """;
        assertThat(ProcessSampler.heapUsedKb(serial)).isEqualTo(3240);
        assertThat(ProcessSampler.heapUsedKb(" garbage-first heap   total 262144K, used 12345K [0x0]"))
            .isEqualTo(12345);
        assertThat(ProcessSampler.heapUsedKb("com.sun.tools.attach.AttachNotSupportedException")).isEqualTo(-1);
    }

    @Test
    void aSampleRoundTripsThroughItsCsvLine() {
        SoakSample sample = new SoakSample(12.5, "coordinator-2", 4242, -0.75, 180_000, 52, 16, -1);
        assertThat(sample.csv()).isEqualTo("12.500,coordinator-2,4242,-0.750,180000,52,16,");
        assertThat(SoakSample.parse(sample.csv())).isEqualTo(sample);
        assertThat(SoakSample.parse("1.000,worker-1,1,0.000,1,2,3,4").heapKb()).isEqualTo(4);
    }

}
