package io.hedgerow.loadgen.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScenarioTest {
    @TempDir
    Path dir;

    private Path write(String json) throws IOException {
        return Files.writeString(dir.resolve("scenario.json"), json);
    }

    @Test
    void readsPhasesRequestOptionsAndFaults() throws IOException {
        Scenario scenario = Scenario.read(write("""
                {
                  // comments are allowed
                  "name": "stall",
                  "seed": 7,
                  "request": {"k": 10, "timeout_ms": 500},
                  "phases": [
                    {"name": "warmup", "duration": "5s", "rate": 100, "record": false},
                    {"name": "stalled", "duration": "30s", "rate": 400, "arrival": "constant",
                     "mix": "high_term=1", "request": {"k": 20, "hedge": "hedged"},
                     "faults": [{"type": "pause", "leaf": 1, "pause": "150ms", "every": "1s"},
                                {"type": "kill", "leaf": 2, "at": "10s", "restart_at": "20s"}]},
                    {"name": "closed", "duration": "10s", "arrival": "closed", "concurrency": 4}
                  ]
                }
                """));
        assertThat(scenario.name()).isEqualTo("stall");
        assertThat(scenario.phases()).hasSize(3);
        assertThat(scenario.phases().get(0).toSpec().record()).isFalse();
        ScenarioPhase stalled = scenario.phases().get(1);
        assertThat(stalled.toSpec().duration()).isEqualTo(Duration.ofSeconds(30));
        assertThat(stalled.toSpec().mode()).isEqualTo("open/constant");
        assertThat(scenario.request().with(stalled.request()).toQueryString())
                .isEqualTo("&k=20&timeout_ms=500&hedge=hedged");
        assertThat(stalled.faults()).containsExactly(new Fault.Pause(1, "150ms", "1s", null),
                new Fault.Kill(2, "10s", "20s"));
        assertThat(((Fault.Pause) stalled.faults().get(0)).pauseDuration()).isEqualTo(Duration.ofMillis(150));
        assertThat(scenario.phases().get(2).toSpec().mode()).isEqualTo("closed");
    }

    @Test
    void namesTheLineAndFieldOfAnUnknownField() throws IOException {
        Path file = write("""
                {
                  "name": "x",
                  "phases": [
                    {"name": "a", "duration": "5s", "rate": 10, "rtae": 3}
                  ]
                }
                """);
        assertThatThrownBy(() -> Scenario.read(file))
                .hasMessageContaining(file.toString())
                .hasMessageContaining("line 4")
                .hasMessageContaining("phases[0].rtae")
                .hasMessageContaining("unknown field 'rtae'")
                .hasMessageContaining("rate");
    }

    @Test
    void namesTheFieldOfAnInvalidValue() throws IOException {
        assertThatThrownBy(() -> Scenario.read(write("""
                {"name": "x", "phases": [
                  {"name": "a", "duration": "5s", "rate": -2}
                ]}
                """))).hasMessageContaining("line 2").hasMessageContaining("phases[0]")
                .hasMessageContaining("rate: -2.0 (expected: > 0");
        assertThatThrownBy(() -> Scenario.read(write("""
                {"name": "x", "phases": [{"name": "a", "duration": "5 seconds", "rate": 2}]}
                """))).hasMessageContaining("'5 seconds' is not a duration (expected e.g. 150ms, 10s");
        assertThatThrownBy(() -> Scenario.read(write("""
                {"name": "x", "phases": [{"name": "a", "duration": "5s", "rate": 2,
                  "faults": [{"type": "pause", "leaf": 0, "pause": "2s", "every": "1s"}]}]}
                """))).hasMessageContaining("phases[0].faults[0]").hasMessageContaining("pause: 2s (expected: shorter than every: 1s)");
        assertThatThrownBy(() -> Scenario.read(write("""
                {"name": "x", "phases": [{"name": "a", "duration": "5s", "rate": 2,
                  "faults": [{"type": "melt", "leaf": 0}]}]}
                """))).hasMessageContaining("line 2").hasMessageContaining("unknown fault type (expected: pause, kill or delay)");
        assertThatThrownBy(() -> Scenario.read(write("""
                {"name": "x", "phases": [{"name": "a", "rate": 2}]}
                """))).hasMessageContaining("phases[0]").hasMessageContaining("missing required field 'duration'");
        assertThatThrownBy(() -> Scenario.read(write("""
                {"name": "x", "phases": [{"name": "a", "duration": "5s", "rate": 2, "request": {"k": 0}}]}
                """))).hasMessageContaining("phases[0].request").hasMessageContaining("k: 0 (expected: 1..1000)");
    }

    @Test
    void readsADelayFaultWithItsWindowBoundedByThePhase() throws IOException {
        Scenario scenario = Scenario.read(write("""
                {"name": "slow", "phases": [{"name": "delayed", "duration": "30s", "rate": 300, "faults": [
                  {"type": "delay", "leaf": 1, "delay": "50ms", "probability": 0.05},
                  {"type": "delay", "leaf": 2, "delay": "1.5s", "probability": 1, "start": "5s", "end": "40s", "seed": 9}]}]}
                """));
        List<Fault> faults = scenario.phases().get(0).faults();
        assertThat(faults).containsExactly(new Fault.Delay(1, "50ms", 0.05, null, null, null),
                new Fault.Delay(2, "1.5s", 1.0, "5s", "40s", 9L));
        Fault.Delay first = (Fault.Delay) faults.get(0);
        Fault.Delay second = (Fault.Delay) faults.get(1);
        Duration phase = Duration.ofSeconds(30);
        assertThat(first.delayDuration()).isEqualTo(Duration.ofMillis(50));
        assertThat(first.startOffset()).isZero();
        assertThat(first.endOffset(phase)).isEqualTo(phase);
        assertThat(second.delayDuration()).isEqualTo(Duration.ofMillis(1500));
        assertThat(second.startOffset()).isEqualTo(Duration.ofSeconds(5));
        assertThat(second.endOffset(phase)).as("never past the phase").isEqualTo(phase);
    }

    @Test
    void refusesBadDelayFaultsNamingTheField() throws IOException {
        assertThatThrownBy(() -> Scenario.read(write(phaseWith("{\"type\": \"delay\", \"leaf\": 0, \"delay\": \"50ms\"}"))))
                .hasMessageContaining("phases[0].faults[0]").hasMessageContaining("missing required field 'probability'");
        assertThatThrownBy(() -> Scenario.read(write(phaseWith(
                "{\"type\": \"delay\", \"leaf\": 0, \"delay\": \"50ms\", \"probability\": 1.5}"))))
                .hasMessageContaining("phases[0].faults[0]").hasMessageContaining("probability: 1.5 (expected: 0..1)");
        assertThatThrownBy(() -> Scenario.read(write(phaseWith(
                "{\"type\": \"delay\", \"leaf\": 0, \"delay\": \"2m\", \"probability\": 1}"))))
                .hasMessageContaining("delay: 2m (expected: > 0 and at most 1m)");
        assertThatThrownBy(() -> Scenario.read(write(phaseWith(
                "{\"type\": \"delay\", \"leaf\": 0, \"delay\": \"0ms\", \"probability\": 1}"))))
                .hasMessageContaining("delay: 0ms (expected: > 0");
        assertThatThrownBy(() -> Scenario.read(write(phaseWith(
                "{\"type\": \"delay\", \"leaf\": -1, \"delay\": \"5ms\", \"probability\": 1}"))))
                .hasMessageContaining("leaf: -1 (expected: >= 0)");
        assertThatThrownBy(() -> Scenario.read(write(phaseWith(
                "{\"type\": \"delay\", \"leaf\": 0, \"delay\": \"5ms\", \"probability\": 1, \"start\": \"9s\", \"end\": \"3s\"}"))))
                .hasMessageContaining("end: 3s (expected: after start: 9s)");
        assertThatThrownBy(() -> Scenario.read(write(phaseWith(
                "{\"type\": \"delay\", \"leaf\": 0, \"delay\": \"5ms\", \"probability\": 1, \"start\": \"30s\"}"))))
                .hasMessageContaining("phases[0]").hasMessageContaining("faults[0].start: 30s (expected: before the phase ends at 30s)");
        assertThatThrownBy(() -> Scenario.read(write(phaseWith(
                "{\"type\": \"delay\", \"leaf\": 0, \"delay\": \"5ms\", \"probability\": 1, \"every\": \"1s\"}"))))
                .hasMessageContaining("unknown field 'every'").hasMessageContaining("probability");
        assertThatThrownBy(() -> Scenario.read(write("""
                {"name": "x", "phases": [{"name": "long", "duration": "2h", "rate": 2,
                  "faults": [{"type": "delay", "leaf": 0, "delay": "5ms", "probability": 1}]}]}
                """))).hasMessageContaining("faults[0]: a delay of 2h (expected: at most 1h");
    }

    @Test
    void readsTheLeafDelayExampleScenario() throws IOException {
        Path example = Path.of("..", "docs", "scenarios", "leaf-delay.json");
        Scenario scenario = Scenario.read(example);
        assertThat(scenario.phases()).extracting(ScenarioPhase::name).containsExactly("warmup", "delayed", "recovered");
        assertThat(scenario.phases().get(1).faults()).singleElement().isInstanceOf(Fault.Delay.class);
    }

    private static String phaseWith(String fault) {
        return "{\"name\": \"x\", \"phases\": [{\"name\": \"a\", \"duration\": \"30s\", \"rate\": 2,\n"
                + "  \"faults\": [" + fault + "]}]}";
    }

    @Test
    void reportsMalformedJsonAndMissingFiles() throws IOException {
        assertThatThrownBy(() -> Scenario.read(write("{\"name\": \"x\",\n \"phases\": [ }")))
                .hasMessageContaining("line 2");
        assertThatThrownBy(() -> Scenario.read(write("{\"name\": \"x\", \"phases\": []}")))
                .hasMessageContaining("phases: none (expected: at least one phase)");
        assertThatThrownBy(() -> Scenario.read(dir.resolve("missing.json")))
                .hasMessageContaining("missing.json: no such scenario file");
    }
}
