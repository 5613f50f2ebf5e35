package io.varpulis.delivery;

import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.InMemoryKeyValueState;
import io.varpulis.test.TestPipelines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SPEC section 9, output identity: an output without a key is deduplicated by its bytes
 * alone, so an apply returning several of them is said once per pipeline at WARN, naming
 * the fix (a key).
 */
@ExtendWith(OutputCaptureExtension.class)
class UnkeyedOutputsWarningTest {

    @Test
    void severalOutputsWithoutAKeyAreSaidOncePerPipeline_keyedOnesNever(CapturedOutput output) throws Exception {
        DeployedPipeline unkeyed = TestPipelines.deployed("g", "split",
                (event, context) -> List.of(Event.of("A", Map.of()), Event.of("B", Map.of())),
                new InMemoryKeyValueState());
        DeployedPipeline keyed = TestPipelines.deployed("g", "keyed",
                (event, context) -> List.of(context.keyed(Event.of("A", Map.of()), "a"),
                        context.keyed(Event.of("B", Map.of()), "b"), Event.of("C", Map.of())),
                new InMemoryKeyValueState());

        for (int i = 0; i < 3; i++) {
            unkeyed.apply(Event.of("In", Map.of()), "m" + i, 1);
            keyed.apply(Event.of("In", Map.of()), "m" + i, 1);
        }

        assertThat(output.getOut().split("returned ", -1)).as("one WARN, for the pipeline without keys").hasSize(2);
        assertThat(output.getOut()).contains("pipeline g/split returned 2 outputs without a key")
            .contains("ProcessingContext.keyed")
            .doesNotContain("pipeline g/keyed returned");
    }

}
