package io.hedgerow.loadgen.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario files in JSON and in YAML: the same fields, the same scenario, and the same
 * {@code file: line L, column C: path: problem} errors.
 */
class ScenarioFormatsTest {
    @TempDir
    Path dir;

    private Path write(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text);
    }

    /** Asserts the whole shape of the message, and that it names the line where the field or object with the problem starts. */
    private static void assertRefused(Path file, int line, String pathAndProblem) {
        assertThatThrownBy(() -> Scenario.read(file))
                .hasMessageMatching(Pattern.quote(file + ": line " + line + ", column ") + "\\d+: "
                        + Pattern.quote(pathAndProblem) + ".*");
    }

    @Test
    void readsTheLeafPauseExampleAlikeFromJsonAndYaml() throws IOException {
        Path examples = Path.of("..", "docs", "scenarios");

        Scenario json = Scenario.read(examples.resolve("leaf-pause.json"));
        Scenario yaml = Scenario.read(examples.resolve("leaf-pause.yaml"));

        assertThat(yaml).isEqualTo(json);
        assertThat(yaml.phases().get(2).faults()).containsExactly(new Fault.Pause(1, "150ms", "1s", null));
    }

    @Test
    void readsYamlByItsExtensionWithOnAndOffAsWords() throws IOException {
        String yaml = """
                name: words
                request: {hedge: off}
                phases:
                  - {name: a, duration: 5s, rate: 10, record: false}
                  - name: b
                    duration: 5s
                    rate: 10
                    request: {hedge: hedged}
                    faults:
                      - {type: restart, leaf: all, every: 20s, start: 5s}
                """;
        Scenario yml = Scenario.read(write("words.yml", yaml));
        Scenario upper = Scenario.read(write("words.YAML", yaml));

        assertThat(upper).isEqualTo(yml);
        assertThat(yml.request().toQueryString()).isEqualTo("&hedge=off");
        assertThat(yml.phases().getFirst().toSpec().record()).isFalse();
        assertThat(yml.phases().get(1).faults()).containsExactly(new Fault.Restart(Leaves.ALL, "20s", "5s", null));
    }

    @Test
    void namesTheLineAndPathOfAnUnknownFieldInBothFormats() throws IOException {
        String problem = "phases[0].rtae: unknown field 'rtae' (expected one of: arrival, concurrency, duration, faults, mix,"
                + " name, rate, record, request)";
        assertRefused(write("unknown.json", """
                {
                  "name": "x",
                  "phases": [
                    {"name": "a", "duration": "5s", "rate": 10, "rtae": 3}
                  ]
                }
                """), 4, problem);
        assertRefused(write("unknown.yaml", """
                name: x
                phases:
                  - name: a
                    duration: 5s
                    rate: 10
                    rtae: 3
                """), 6, problem);
    }

    @Test
    void namesTheLineAndPathOfABadValueInBothFormats() throws IOException {
        String problem = "phases[0].faults[0]: pause: 2s (expected: shorter than every: 1s)";
        assertRefused(write("bad.json", """
                {"name": "x", "phases": [{"name": "a", "duration": "5s", "rate": 2,
                  "faults": [{"type": "pause", "leaf": 0, "pause": "2s", "every": "1s"}]}]}
                """), 2, problem);
        assertRefused(write("bad.yaml", """
                name: x
                phases:
                  - name: a
                    duration: 5s
                    rate: 2
                    faults:
                      - type: pause
                        leaf: 0
                        pause: 2s
                        every: 1s
                """), 7, problem);
    }

    @Test
    void namesTheLineAndPathOfAMissingRequiredFieldInBothFormats() throws IOException {
        String problem = "phases[0].duration: missing required field 'duration'";
        assertRefused(write("missing.json", """
                {"name": "x",
                 "phases": [{"name": "a", "rate": 2}]}
                """), 2, problem);
        assertRefused(write("missing.yaml", """
                name: x
                phases:
                  - name: a
                    rate: 2
                """), 3, problem);
    }

    @Test
    void namesTheLineAndPathOfAnUnknownFaultTypeInBothFormats() throws IOException {
        String problem = "phases[0].faults[0]: unknown fault type (expected: pause, kill, delay, stall or restart)";
        assertRefused(write("type.json", """
                {"name": "x", "phases": [{"name": "a", "duration": "5s", "rate": 2,
                  "faults": [{"type": "melt", "leaf": 0}]}]}
                """), 2, problem);
        assertRefused(write("type.yaml", """
                name: x
                phases:
                  - name: a
                    duration: 5s
                    rate: 2
                    faults:
                      - type: melt
                        leaf: 0
                """), 7, problem);
    }

    @Test
    void reportsMalformedYamlWithItsLine() throws IOException {
        Path file = write("broken.yaml", "name: x\nphases:\n  - name: [a\n");
        assertThatThrownBy(() -> Scenario.read(file)).hasMessageStartingWith(file + ": line ");
    }

    @Test
    void readsRollingRestartsAndRefusesBadOnesNamingTheField() throws IOException {
        Scenario example = Scenario.read(Path.of("..", "docs", "scenarios", "rolling-restart.json"));
        assertThat(example.phases()).extracting(ScenarioPhase::name).containsExactly("warmup", "baseline", "rolling-restart",
                "recovered");
        Fault.Restart restart = (Fault.Restart) example.phases().get(2).faults().getFirst();
        assertThat(restart).isEqualTo(new Fault.Restart(Leaves.ALL, "20s", "5s", null));
        assertThat(List.of(restart.offsetOf(0), restart.offsetOf(1), restart.offsetOf(3)))
                .extracting(java.time.Duration::toSeconds).containsExactly(5L, 25L, 65L);
        assertThat(restart.graceDuration()).isEqualTo(Fault.Restart.DEFAULT_GRACE);
        assertThat(new Fault.Restart(Leaves.one(2), null, null, "5s").offsetOf(0)).isZero();

        assertRefused(write("every.yaml", """
                name: x
                phases:
                  - name: a
                    duration: 30s
                    faults:
                      - {type: restart, leaf: all}
                """), 6, "phases[0].faults[0]: every: missing (expected: the time between two leaves' restarts, e.g. 20s,"
                + " when leaf is \"all\")");
        assertRefused(write("zero.json", """
                {"name": "x", "phases": [{"name": "a", "duration": "30s",
                  "faults": [{"type": "restart", "leaf": "all", "every": "0s"}]}]}
                """), 2, "phases[0].faults[0]: every: 0s (expected: > 0)");
        assertRefused(write("grace.json", """
                {"name": "x", "phases": [{"name": "a", "duration": "30s",
                  "faults": [{"type": "restart", "leaf": 1, "grace": "a while"}]}]}
                """), 2, "phases[0].faults[0]: 'a while' is not a duration (expected e.g. 150ms, 10s, 2m, 1h)");
        assertRefused(write("leaf.json", """
                {"name": "x", "phases": [{"name": "a", "duration": "30s",
                  "faults": [{"type": "restart", "leaf": "some", "every": "1s"}]}]}
                """), 2, "phases[0].faults[0].leaf: leaf: \"some\" (expected: a leaf number, or \"all\")");
    }
}
