package io.varpulis.deploy;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code Dockerfile}, read instruction by instruction (no Docker engine runs here):
 * multi-stage, a JRE runtime, the layered jar, a non-root numeric user, and JVM options
 * left to the operator.
 */
class DockerfileTest {

    /**
     * One instruction, continuation lines joined: {@code keyword} upper-cased,
     * {@code arguments} as written.
     */
    private record Instruction(String keyword, String arguments) {
    }

    private static List<List<Instruction>> stages;

    @BeforeAll
    static void readDockerfile() throws Exception {
        stages = new ArrayList<>();
        for (Instruction instruction : parse(Files.readAllLines(Path.of("Dockerfile")))) {
            if (instruction.keyword().equals("FROM")) {
                stages.add(new ArrayList<>());
            }
            if (!stages.isEmpty()) {
                stages.get(stages.size() - 1).add(instruction);
            }
        }
    }

    @Test
    void buildsWithTheJdkAndRunsOnTheJre() {
        assertThat(stages).hasSize(2);
        assertThat(from(build())).startsWith("eclipse-temurin:17-jdk").endsWith(" AS build");
        assertThat(arguments(build(), "RUN")).anyMatch(run -> run.contains("./mvnw") && run.contains("package"));
        assertThat(from(runtime())).startsWith("eclipse-temurin:17-jre");
    }

    @Test
    void copiesTheProjectsJarAsLayersLeastChangingFirst() {
        ProjectModel project = ProjectModel.read();
        assertThat(arguments(build(), "RUN")).anyMatch(run -> run.contains("target/" + project.artifactId() + "-*.jar")
                && run.contains("-Djarmode=tools") && run.contains("extract --layers"));

        List<String> layers = arguments(runtime(), "COPY").stream()
            .filter(copy -> copy.startsWith("--from=build"))
            .map(copy -> copy.replaceAll(".*/extracted/([^/]+)/.*", "$1"))
            .toList();
        assertThat(layers).containsExactly("dependencies", "spring-boot-loader", "snapshot-dependencies",
                "application");
        assertThat(arguments(runtime(), "ENTRYPOINT")).containsExactly("[\"java\", \"-jar\", \"application.jar\"]");
    }

    @Test
    void runsAsANumericNonRootUser() {
        List<String> users = arguments(runtime(), "USER");
        assertThat(users).isNotEmpty();
        String user = users.get(users.size() - 1);
        assertThat(user).as("numeric, so Kubernetes can verify runAsNonRoot").matches("[0-9]+(:[0-9]+)?");
        assertThat(user.split(":")[0]).isEqualTo("10001");
    }

    @Test
    void leavesTheHeapToTheContainerLimitAndJavaToolOptions() {
        String dockerfile = String.join("\n",
                stages.stream().flatMap(List::stream).map(Instruction::arguments).toList());
        assertThat(dockerfile).doesNotContain("-Xmx");
        assertThat(arguments(runtime(), "ENV"))
            .anyMatch(env -> env.startsWith("JAVA_TOOL_OPTIONS=") && env.contains("-XX:MaxRAMPercentage="));
    }

    @Test
    void exposesTheHttpPortAndChecksReadiness() {
        assertThat(arguments(runtime(), "EXPOSE")).containsExactly("8080");
        assertThat(arguments(runtime(), "HEALTHCHECK")).singleElement()
            .asString()
            .contains("http://127.0.0.1:8080/actuator/health/readiness");
        assertThat(arguments(runtime(), "ENV")).as("the readiness group exists outside Kubernetes too")
            .contains("MANAGEMENT_ENDPOINT_HEALTH_PROBES_ENABLED=true");
    }

    @Test
    void theBuildContextLeavesOutLocalBuildOutput() throws Exception {
        List<String> rules = Files.readAllLines(Path.of(".dockerignore"))
            .stream()
            .map(String::strip)
            .filter(line -> !line.isEmpty() && !line.startsWith("#"))
            .toList();
        assertThat(rules.get(0)).as("allow-list: everything excluded first").isEqualTo("*");
        assertThat(rules).contains("!mvnw", "!.mvn/", "!pom.xml", "!src/").doesNotContain("!target/");
    }

    private static List<Instruction> build() {
        return stages.get(0);
    }

    private static List<Instruction> runtime() {
        return stages.get(stages.size() - 1);
    }

    private static String from(List<Instruction> stage) {
        return stage.get(0).arguments();
    }

    private static List<String> arguments(List<Instruction> stage, String keyword) {
        return stage.stream()
            .filter(instruction -> instruction.keyword().equals(keyword))
            .map(Instruction::arguments)
            .toList();
    }

    /**
     * Instructions of a Dockerfile: comments and blank lines dropped, backslash
     * continuations joined.
     */
    private static List<Instruction> parse(List<String> lines) {
        List<Instruction> instructions = new ArrayList<>();
        StringBuilder pending = new StringBuilder();
        for (String line : lines) {
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                continue;
            }
            boolean continues = trimmed.endsWith("\\");
            pending.append(continues ? trimmed.substring(0, trimmed.length() - 1).strip() : trimmed).append(' ');
            if (!continues) {
                String instruction = pending.toString().strip();
                int space = instruction.indexOf(' ');
                instructions.add(new Instruction(instruction.substring(0, space).toUpperCase(),
                        instruction.substring(space + 1).strip()));
                pending.setLength(0);
            }
        }
        return instructions;
    }

}
