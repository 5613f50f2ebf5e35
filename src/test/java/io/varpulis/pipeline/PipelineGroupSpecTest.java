package io.varpulis.pipeline;

import io.varpulis.pipeline.PipelineGroupSpec.PipelineSpec;
import io.varpulis.pipeline.PipelineGroupSpec.ProcessorSpec;
import io.varpulis.pipeline.PipelineGroupSpec.RouteSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Groups that could never run, or would flood the routing stream, are refused when they
 * are declared.
 */
class PipelineGroupSpecTest {

    private static PipelineSpec pipeline(String name) {
        return new PipelineSpec(name, new ProcessorSpec("passthrough", Map.of()));
    }

    @Test
    void aRouteCycleIsRefusedNamingTheCycle() {
        PipelineGroupSpec selfLoop = new PipelineGroupSpec("g", List.of(pipeline("p")),
                List.of(new RouteSpec("_external", "p", null), new RouteSpec("p", "p", null)));
        assertThatThrownBy(selfLoop::validate).hasMessageContaining("cycle (p -> p)");

        PipelineGroupSpec twoHop = new PipelineGroupSpec("g", List.of(pipeline("p"), pipeline("q")), List
            .of(new RouteSpec("_external", "p", null), new RouteSpec("p", "q", null), new RouteSpec("q", "p", null)));
        assertThatThrownBy(twoHop::validate).hasMessageContaining("cycle (p -> q -> p)");
    }

    @Test
    void aDiamondIsNotACycle() {
        PipelineGroupSpec diamond = new PipelineGroupSpec("g",
                List.of(pipeline("a"), pipeline("b"), pipeline("c"), pipeline("d")),
                List.of(new RouteSpec("_external", "a", null), new RouteSpec("a", "b", null),
                        new RouteSpec("a", "c", null), new RouteSpec("b", "d", null), new RouteSpec("c", "d", null)));
        assertThatCode(diamond::validate).doesNotThrowAnyException();
    }

    @Test
    void namesLongerThan64CharactersAreRefused_theyWouldOverflowStreamAndBucketNames() {
        String longName = "a".repeat(65);
        assertThatThrownBy(() -> new PipelineGroupSpec(longName, List.of(pipeline("p")), List.of()).validate())
            .hasMessageContaining("at most 64");
        assertThatThrownBy(() -> new PipelineGroupSpec("g", List.of(pipeline(longName)), List.of()).validate())
            .hasMessageContaining("at most 64");
    }

    @Test
    void aGroupWithoutANameSaysSo() {
        assertThatThrownBy(() -> new PipelineGroupSpec(null, List.of(pipeline("p")), List.of()).validate())
            .hasMessage("a pipeline group needs a name");
    }

    @Test
    void filterExpressionsMayNotCallMethods() {
        ProcessorType filter = BuiltInProcessorTypes.filter();
        PipelineSpec callsMethods = new PipelineSpec("f",
                new ProcessorSpec("filter", Map.of("expression", "'a'.repeat(100000000).length() > 0")));
        assertThatThrownBy(() -> filter.validate(callsMethods)).hasMessageContaining("method calls");
        PipelineSpec operatorsOnly = new PipelineSpec("f", new ProcessorSpec("filter",
                Map.of("expression", "event_type == 'SshAuthFailure' and fields['user'] matches 'r.*'")));
        assertThatCode(() -> filter.validate(operatorsOnly)).doesNotThrowAnyException();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "event_type.class.name == 'x'", "event_type.length > 3", "timestamp.bytes != null",
            "#root != null", "fields.?[true] != null", "user == 'root'", "event_type[0] == 'S'", "['fields'] != null" })
    void filterExpressionsThatCanOnlyFailOnEveryEventAreRefusedWhenDeclared(String expression) {
        PipelineSpec pipeline = new PipelineSpec("f", new ProcessorSpec("filter", Map.of("expression", expression)));
        assertThatThrownBy(() -> BuiltInProcessorTypes.filter().validate(pipeline))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("filter pipeline f: expression '" + expression + "' uses");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "fields.user == 'root'", "fields['geo']['country'] == 'NL'", "timestamp != null",
            "event_type matches 'Ssh.*' ? true : false", "fields['port'] > 1024 or !(fields['user'] == 'x')",
            "fields['attempts'] >= 3 and fields['user'] != null" })
    void filterExpressionsOverTheEventAreAccepted(String expression) {
        PipelineSpec pipeline = new PipelineSpec("f", new ProcessorSpec("filter", Map.of("expression", expression)));
        assertThatCode(() -> BuiltInProcessorTypes.filter().validate(pipeline)).doesNotThrowAnyException();
    }

}
