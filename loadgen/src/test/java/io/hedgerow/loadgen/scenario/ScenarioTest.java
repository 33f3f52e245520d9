package io.hedgerow.loadgen.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
                """))).hasMessageContaining("line 2").hasMessageContaining("unknown fault type (expected: pause or kill)");
        assertThatThrownBy(() -> Scenario.read(write("""
                {"name": "x", "phases": [{"name": "a", "rate": 2}]}
                """))).hasMessageContaining("phases[0]").hasMessageContaining("missing required field 'duration'");
        assertThatThrownBy(() -> Scenario.read(write("""
                {"name": "x", "phases": [{"name": "a", "duration": "5s", "rate": 2, "request": {"k": 0}}]}
                """))).hasMessageContaining("phases[0].request").hasMessageContaining("k: 0 (expected: 1..1000)");
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
