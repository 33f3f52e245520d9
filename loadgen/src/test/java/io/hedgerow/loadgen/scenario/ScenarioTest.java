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
                """))).hasMessageContaining("line 2").hasMessageContaining("unknown fault type (expected: pause, kill, delay, stall or restart)");
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
                .hasMessageContaining("phases[0].faults[0].leaf: leaf: -1 (expected: >= 0, or \"all\")");
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
    void readsStallsDistributionsAndFaultsOnAllLeaves() throws IOException {
        Scenario scenario = Scenario.read(write("""
                {"name": "tail", "phases": [{"name": "faulty", "duration": "60s", "rate": 1000,
                  "request": {"hedge": "hedged", "hedge_after_ms": 10},
                  "faults": [
                    {"type": "stall", "leaf": 1, "stall": "150ms", "every": "1s"},
                    {"type": "stall", "leaf": "all", "stall": "5ms", "every": "2s", "start": "10s", "end": "20s"},
                    {"type": "delay", "leaf": "all", "delay": "1s", "probability": 0.01, "distribution": "exponential"}]}]}
                """));
        ScenarioPhase phase = scenario.phases().getFirst();
        assertThat(phase.faults()).containsExactly(
                new Fault.Stall(Leaves.one(1), "150ms", "1s", null, null),
                new Fault.Stall(Leaves.ALL, "5ms", "2s", "10s", "20s"),
                new Fault.Delay(Leaves.ALL, "1s", 0.01, null, null, null, "exponential"));
        Fault.Stall stall = (Fault.Stall) phase.faults().getFirst();
        assertThat(stall.stallDuration()).isEqualTo(Duration.ofMillis(150));
        assertThat(stall.period()).isEqualTo(Duration.ofSeconds(1));
        assertThat(stall.endOffset(Duration.ofSeconds(60))).isEqualTo(Duration.ofSeconds(60));
        assertThat(((Fault.Stall) phase.faults().get(1)).endOffset(Duration.ofSeconds(60))).isEqualTo(Duration.ofSeconds(20));
        assertThat(phase.faults().get(2).toString()).contains("leaf=all");
        assertThat(phase.request().toQueryString()).isEqualTo("&hedge=hedged&hedge_after_ms=10");
    }

    @Test
    void givesEachLeafOfAllItsOwnSeedButKeepsTheSeedOfOneLeaf() {
        assertThat(new Fault.Delay(Leaves.one(3), "1s", 0.01, null, null, 42L, null).seedFor(3)).isEqualTo(42L);
        Fault.Delay all = new Fault.Delay(Leaves.ALL, "1s", 0.01, null, null, 42L, null);
        assertThat(all.seedFor(0)).isEqualTo(42L);
        assertThat(List.of(all.seedFor(0), all.seedFor(1), all.seedFor(2), all.seedFor(3))).doesNotHaveDuplicates();
        assertThat(new Fault.Delay(Leaves.ALL, "1s", 0.01, null, null, null, null).seedFor(2)).as("the leaf chooses").isNull();
    }

    @Test
    void refusesBadStallsLeavesAndDistributionsNamingTheField() throws IOException {
        assertThatThrownBy(() -> Scenario.read(write(phaseWith(
                "{\"type\": \"stall\", \"leaf\": 1, \"stall\": \"1s\", \"every\": \"1s\"}"))))
                .hasMessageContaining("phases[0].faults[0]").hasMessageContaining("stall: 1s (expected: shorter than every: 1s)");
        assertThatThrownBy(() -> Scenario.read(write(phaseWith(
                "{\"type\": \"stall\", \"leaf\": 1, \"stall\": \"1.5ms\", \"every\": \"1s\"}"))))
                .hasMessageContaining("stall: 1.5ms (expected: whole milliseconds, at least 1ms)");
        assertThatThrownBy(() -> Scenario.read(write(phaseWith(
                "{\"type\": \"stall\", \"leaf\": 1, \"stall\": \"10ms\"}"))))
                .hasMessageContaining("missing required field 'every'");
        assertThatThrownBy(() -> Scenario.read(write(phaseWith(
                "{\"type\": \"stall\", \"leaf\": \"some\", \"stall\": \"10ms\", \"every\": \"1s\"}"))))
                .hasMessageContaining("phases[0].faults[0].leaf").hasMessageContaining("leaf: \"some\" (expected: a leaf number, or \"all\")");
        assertThatThrownBy(() -> Scenario.read(write(phaseWith(
                "{\"type\": \"delay\", \"leaf\": -2, \"delay\": \"5ms\", \"probability\": 1}"))))
                .hasMessageContaining("leaf: -2 (expected: >= 0, or \"all\")");
        assertThatThrownBy(() -> Scenario.read(write(phaseWith(
                "{\"type\": \"delay\", \"leaf\": 0, \"delay\": \"5ms\", \"probability\": 1, \"distribution\": \"gamma\"}"))))
                .hasMessageContaining("distribution: 'gamma' (expected: fixed or exponential)");
        assertThatThrownBy(() -> Scenario.read(write(phaseWith(
                "{\"type\": \"pause\", \"leaf\": \"all\", \"pause\": \"10ms\", \"every\": \"1s\"}"))))
                .as("pauses and kills name one leaf").hasMessageContaining("phases[0].faults[0].leaf");
        assertThatThrownBy(() -> Scenario.read(write("""
                {"name": "x", "phases": [{"name": "long", "duration": "2h", "rate": 2,
                  "faults": [{"type": "stall", "leaf": 0, "stall": "5ms", "every": "1s"}]}]}
                """))).hasMessageContaining("faults[0]: a stall of 2h (expected: at most 1h");
        assertThatThrownBy(() -> Scenario.read(write("""
                {"name": "x", "phases": [{"name": "a", "duration": "5s", "rate": 2, "request": {"hedge": "maybe"}}]}
                """))).hasMessageContaining("phases[0].request").hasMessageContaining("hedge: 'maybe' (expected: off, hedged or tied)");
        assertThatThrownBy(() -> Scenario.read(write("""
                {"name": "x", "phases": [{"name": "a", "duration": "5s", "rate": 2, "request": {"hedge_after_ms": -1}}]}
                """))).hasMessageContaining("hedge_after_ms: -1 (expected: >= 0)");
    }

    @Test
    void readsTheBackupRequestBenchmarkScenarios() throws IOException {
        for (String name : List.of("no-fault", "delay-1pct-1s", "stall-150ms")) {
            Scenario scenario = Scenario.read(Path.of("..", "docs", "benchmarks", "backup-requests", name + ".json"));
            assertThat(scenario.name()).isEqualTo(name);
            assertThat(scenario.phases()).extracting(ScenarioPhase::name)
                    .containsExactly("warmup-off", "warmup-hedged", "warmup-tied", "off", "backup-10ms", "hedged-p95", "tied");
            assertThat(scenario.phases().stream().map(phase -> scenario.request().with(phase.request()).toQueryString()))
                    .containsExactly("&timeout_ms=2000&snippets=false&stored_fields=false&hedge=off",
                            "&timeout_ms=2000&snippets=false&stored_fields=false&hedge=hedged",
                            "&timeout_ms=2000&snippets=false&stored_fields=false&hedge=tied",
                            "&timeout_ms=2000&snippets=false&stored_fields=false&hedge=off",
                            "&timeout_ms=2000&snippets=false&stored_fields=false&hedge=hedged&hedge_after_ms=10",
                            "&timeout_ms=2000&snippets=false&stored_fields=false&hedge=hedged",
                            "&timeout_ms=2000&snippets=false&stored_fields=false&hedge=tied");
            assertThat(scenario.phases().stream().limit(3).flatMap(phase -> phase.faults().stream()))
                    .as("no fault while warming up").isEmpty();
            assertThat(scenario.phases().stream().limit(3)).as("warm-ups are not recorded").noneMatch(phase -> phase.toSpec().record());
            assertThat(scenario.phases().stream().skip(3).map(ScenarioPhase::faults).distinct())
                    .as("every policy meets the same faults").hasSize(1);
        }
    }

    @Test
    void readsTheGoodEnoughBenchmarkScenarios() throws IOException {
        Path dir = Path.of("..", "docs", "benchmarks", "good-enough");
        Scenario stall = Scenario.read(dir.resolve("stall-300ms.json"));
        assertThat(stall.name()).isEqualTo("stall-300ms");
        assertThat(stall.phases()).extracting(ScenarioPhase::name).containsExactly("warmup-off", "warmup-hedged",
                "settle-wait-for-all-off", "wait-for-all-off", "settle-good-enough-off", "good-enough-off",
                "settle-wait-for-all-hedged", "wait-for-all-hedged", "settle-good-enough-hedged", "good-enough-hedged");
        String base = "&timeout_ms=2000&snippets=false&stored_fields=false";
        List<ScenarioPhase> measured = stall.phases().stream().filter(phase -> phase.record() == null || phase.record()).toList();
        assertThat(measured.stream().map(phase -> stall.request().with(phase.request()).toQueryString()))
                .containsExactly(base + "&hedge=off&min_coverage=1.0", base + "&hedge=off&min_coverage=0.9",
                        base + "&hedge=hedged&min_coverage=1.0", base + "&hedge=hedged&min_coverage=0.9");
        // Each measured phase follows an unmeasured one with the same options, so the root's windows learn its policy.
        for (int i = 3; i < stall.phases().size(); i += 2) {
            assertThat(stall.phases().get(i - 1).record()).isFalse();
            assertThat(stall.phases().get(i).record()).isNull();
            assertThat(stall.phases().get(i - 1).request()).isEqualTo(stall.phases().get(i).request());
        }
        assertThat(stall.phases().stream().limit(2).flatMap(phase -> phase.faults().stream()))
                .as("no fault while warming up").isEmpty();
        assertThat(stall.phases().stream().skip(2).map(ScenarioPhase::faults).distinct())
                .as("every policy meets the same stall").singleElement()
                .satisfies(faults -> assertThat(faults).singleElement().isInstanceOf(Fault.Stall.class));
        for (String mode : List.of("on", "off")) {
            Scenario canaries = Scenario.read(dir.resolve("canaries-" + mode + ".json"));
            assertThat(canaries.phases()).extracting(ScenarioPhase::name).containsExactly("warmup", "canaries-" + mode);
            assertThat(canaries.request().with(canaries.phases().get(1).request()).toQueryString())
                    .isEqualTo(base + "&hedge=off&min_coverage=1.0");
            assertThat(canaries.phases()).allMatch(phase -> phase.faults().isEmpty());
        }
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
