package io.hedgerow.loadgen.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.loadgen.run.PhaseSpec;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScenarioOverridesTest {
    private static final ScenarioPhase WARMUP = new ScenarioPhase("warmup", "30s", 300.0, null, null, null, null, null, false);
    private static final ScenarioPhase OPEN = new ScenarioPhase("off", "60s", 300.0, "constant", null, "terms",
            new RequestOptions(null, null, null, null, "off", null, null, null, null), null, null);
    private static final ScenarioPhase CLOSED = new ScenarioPhase("closed", "10s", null, "closed", 4, null, null, null, null);
    private static final Scenario SCENARIO = new Scenario("s", null, null, null, "cheap", null, null,
            new RequestOptions(null, 2000L, false, null, null, null, null, null, null), List.of(WARMUP, OPEN, CLOSED));

    @Test
    void changesNothingWhenNothingIsGiven() {
        assertThat(ScenarioOverrides.NONE.apply(OPEN)).isEqualTo(OPEN.toSpec());
        assertThat(ScenarioOverrides.NONE.mixOf(SCENARIO, OPEN)).isEqualTo("terms");
        assertThat(ScenarioOverrides.NONE.mixOf(SCENARIO, WARMUP)).as("the scenario's").isEqualTo("cheap");
        assertThat(ScenarioOverrides.NONE.requestOf(SCENARIO, OPEN).toQueryString()).isEqualTo("&timeout_ms=2000&snippets=false&hedge=off");
        assertThat(ScenarioOverrides.NONE.describe()).isEmpty();
    }

    @Test
    void setsTheRateOfOpenLoopPhasesAndTheLengthOfRecordedAndWarmUpPhasesApart() {
        ScenarioOverrides overrides = new ScenarioOverrides(1000.0, Duration.ofSeconds(5), Duration.ofSeconds(2), null, null);

        assertThat(overrides.apply(OPEN)).isEqualTo(new PhaseSpec("off", Duration.ofSeconds(5), 1000, "constant", 0, true));
        assertThat(overrides.apply(WARMUP)).isEqualTo(new PhaseSpec("warmup", Duration.ofSeconds(2), 1000, "poisson", 0, false));
        assertThat(overrides.apply(CLOSED)).as("a closed loop keeps its concurrency and has no rate")
                .isEqualTo(new PhaseSpec("closed", Duration.ofSeconds(5), 0, "closed", 4, true));
        assertThat(overrides.describe()).isEqualTo("rate 1000 req/s, recorded phases 5s, warm-up phases 2s");
    }

    @Test
    void theCommandLinesMixAndRequestOptionsWin() {
        ScenarioOverrides overrides = new ScenarioOverrides(null, null, null, "high_term=1",
                new RequestOptions(null, null, true, null, "tied", null, null, null, null));

        assertThat(overrides.mixOf(SCENARIO, OPEN)).isEqualTo("high_term=1");
        assertThat(overrides.requestOf(SCENARIO, OPEN).toQueryString()).isEqualTo("&timeout_ms=2000&snippets=true&hedge=tied");
        assertThat(overrides.describe()).isEqualTo("mix high_term=1, request snippets=true&hedge=tied");
    }

    @Test
    void theCommandLineKeepsTheRootsCacheOutUnlessAsked() {
        // What LoadgenCli sends without --use-cache: every request says cache=false.
        ScenarioOverrides overrides = new ScenarioOverrides(null, null, null, null,
                new RequestOptions(null, null, null, null, null, null, null, null, false));
        assertThat(overrides.requestOf(SCENARIO, OPEN).toQueryString())
                .isEqualTo("&timeout_ms=2000&snippets=false&hedge=off&cache=false");
    }

    @Test
    void refusesNonsense() {
        assertThatThrownBy(() -> new ScenarioOverrides(0.0, null, null, null, null)).hasMessage(
                "rate: 0.0 (expected: > 0 requests per second)");
        assertThatThrownBy(() -> new ScenarioOverrides(null, Duration.ZERO, null, null, null)).hasMessage(
                "phase duration: 0ms (expected: > 0)");
    }
}
