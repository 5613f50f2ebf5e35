package io.varpulis.demo;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When {@code java -jar ... demo} runs the demo in a child JVM with the nodes' JIT flags,
 * and with which command line (issue 27: the feeder's C2 compilations took CPU from the
 * nodes).
 */
class DemoJvmTest {

    @Test
    void relaunchesUnlessTheUserChoseTheCompilerOrSaidNoOrThisIsTheChild() {
        assertThat(DemoJvm.relaunches(List.of("-Xmx1g"), Map.of(), false)).isTrue();
        assertThat(DemoJvm.relaunches(List.of("-XX:TieredStopAtLevel=4"), Map.of(), false)).isFalse();
        assertThat(DemoJvm.relaunches(List.of("-XX:-TieredCompilation"), Map.of(), false)).isFalse();
        assertThat(DemoJvm.relaunches(List.of(), Map.of(DemoJvm.RELAUNCH_VARIABLE, "false"), false)).isFalse();
        assertThat(DemoJvm.relaunches(List.of(), Map.of(DemoJvm.RELAUNCH_VARIABLE, "true"), false)).isTrue();
        assertThat(DemoJvm.relaunches(List.of(), Map.of(), true)).isFalse();
        assertThat(DemoJvm.relaunches(List.of("-agentlib:jdwp=transport=dt_socket,server=y,address=5005"), Map.of(),
                false))
            .as("a debugger's port would be taken twice")
            .isFalse();
        assertThat(DemoJvm.relaunches(List.of("-XX:StartFlightRecording=filename=x.jfr"), Map.of(), false)).isFalse();
        assertThat(DemoJvm.relaunches(List.of("-javaagent:/otel.jar"), Map.of(), false)).isFalse();
    }

    @Test
    void theChildGetsTheNodesFlagsFirstThenTheGivenOnesThenTheDemoAndItsArguments() {
        assertThat(DemoJvm.command(List.of("-Xmx2g", "-Dx=y"), "/opt/jdk", "/srv/varpulis.jar", 42,
                new String[] { "--rate", "5000" }))
            .containsExactly("/opt/jdk/bin/java", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx2g", "-Dx=y",
                    "-D" + DemoJvm.PARENT_PROPERTY + "=42", "-jar", "/srv/varpulis.jar", "demo", "--rate", "5000");
        assertThat(DemoJvm.command(List.of("-XX:+UseG1GC"), "/opt/jdk", "/srv/varpulis.jar", 42, new String[] {}))
            .as("a collector of the user's: the JVM refuses two")
            .doesNotContain("-XX:+UseSerialGC")
            .contains("-XX:TieredStopAtLevel=1", "-XX:+UseG1GC");
        assertThat(
                DemoJvm.command(List.of(), "/opt/jdk", "classes" + File.pathSeparator + "lib.jar", 7, new String[] {}))
            .containsSubsequence("-cp", "classes" + File.pathSeparator + "lib.jar",
                    "io.varpulis.VarpulisClusterApplication", "demo");
    }

}
