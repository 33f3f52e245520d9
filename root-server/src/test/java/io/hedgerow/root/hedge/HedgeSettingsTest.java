package io.hedgerow.root.hedge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.api.HedgeMode;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class HedgeSettingsTest {
    private final HedgeSettings defaults = HedgeSettings.defaults();

    @Test
    void defaultsAreTheDocumentedOnes() {
        assertThat(defaults.defaultMode()).isEqualTo(HedgeMode.HEDGED);
        assertThat(defaults.percentile()).isEqualTo(95.0);
        assertThat(defaults.window()).isEqualTo(Duration.ofSeconds(10));
        assertThat(defaults.minDelay()).isEqualTo(Duration.ofMillis(1));
        assertThat(defaults.maxDelay()).isEqualTo(Duration.ofMillis(100));
        assertThat(defaults.minSamples()).isEqualTo(200);
        assertThat(defaults.fixedDelay()).isNull();
        assertThat(defaults.isAdaptive()).isTrue();
        assertThat(defaults.budgetRatio()).isEqualTo(0.10);
        assertThat(defaults.budgetMinPerSecond()).isEqualTo(10.0);
        assertThat(defaults.retryFloorPerSecond()).isEqualTo(100.0);
        assertThat(defaults.budgetWindow()).isEqualTo(Duration.ofSeconds(10));
        assertThat(defaults.tiedDelay()).isNull();
        assertThat(defaults.tiedMaxDelay()).isEqualTo(Duration.ofMillis(1));
    }

    @Test
    void withCopiesChangeOneFieldEach() {
        HedgeSettings changed = defaults
                .withDefaultMode(HedgeMode.TIED)
                .withPercentile(99)
                .withWindow(Duration.ofSeconds(30))
                .withDelayBounds(Duration.ofMillis(2), Duration.ofMillis(50))
                .withMinSamples(50)
                .withFixedDelay(Duration.ofMillis(10))
                .withBudgetRatio(0.1)
                .withBudgetMinPerSecond(0)
                .withRetryFloorPerSecond(7)
                .withBudgetWindow(Duration.ofSeconds(5))
                .withTiedDelay(Duration.ofMillis(3))
                .withTiedMaxDelay(Duration.ofMillis(4));
        assertThat(changed).isEqualTo(new HedgeSettings(HedgeMode.TIED, 99, Duration.ofSeconds(30),
                Duration.ofMillis(2), Duration.ofMillis(50), 50, Duration.ofMillis(10), 0.1, 0, 7,
                Duration.ofSeconds(5), Duration.ofMillis(3), Duration.ofMillis(4)));
        assertThat(changed.isAdaptive()).isFalse();
        assertThat(changed.withFixedDelay(null).isAdaptive()).isTrue();
        assertThat(changed.withTiedDelay(null).tiedDelay()).isNull();
        assertThat(defaults.withMinDelay(Duration.ZERO).minDelay()).isZero();
        assertThat(defaults.withMaxDelay(Duration.ofMillis(7)).maxDelay()).isEqualTo(Duration.ofMillis(7));
    }

    @Test
    void delayBoundsMayMoveTogetherPastEachOther() {
        HedgeSettings raised = defaults.withDelayBounds(Duration.ofMillis(200), Duration.ofMillis(300));
        assertThat(raised.minDelay()).isEqualTo(Duration.ofMillis(200));
        assertThatThrownBy(() -> defaults.withMinDelay(Duration.ofMillis(200)))
                .hasMessage("maxDelay: 100ms (expected: > 0 and >= minDelay 200ms)");
    }

    @Test
    void refusalsNameTheFieldTheValueAndTheExpectation() {
        assertThatThrownBy(() -> defaults.withPercentile(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("percentile: 0.0 (expected: > 0 and <= 100)");
        assertThatThrownBy(() -> defaults.withPercentile(Double.NaN))
                .hasMessage("percentile: NaN (expected: > 0 and <= 100)");
        assertThatThrownBy(() -> defaults.withPercentile(100.5))
                .hasMessageStartingWith("percentile: 100.5");
        assertThatThrownBy(() -> defaults.withWindow(Duration.ofMillis(5)))
                .hasMessage("window: 5ms (expected: >= 10ms)");
        assertThatThrownBy(() -> defaults.withMinDelay(Duration.ofMillis(-1)))
                .hasMessage("minDelay: -1ms (expected: >= 0)");
        assertThatThrownBy(() -> defaults.withDelayBounds(Duration.ZERO, Duration.ZERO))
                .hasMessage("maxDelay: 0ms (expected: > 0 and >= minDelay 0ms)");
        assertThatThrownBy(() -> defaults.withMinSamples(0))
                .hasMessage("minSamples: 0 (expected: >= 1)");
        assertThatThrownBy(() -> defaults.withFixedDelay(Duration.ofMillis(-5)))
                .hasMessage("fixedDelay: -5ms (expected: >= 0)");
        assertThatThrownBy(() -> defaults.withBudgetRatio(-0.1))
                .hasMessage("budgetRatio: -0.1 (expected: >= 0.0 and <= 1.0)");
        assertThatThrownBy(() -> defaults.withBudgetRatio(1.5))
                .hasMessage("budgetRatio: 1.5 (expected: >= 0.0 and <= 1.0)");
        assertThatThrownBy(() -> defaults.withBudgetMinPerSecond(Double.POSITIVE_INFINITY))
                .hasMessage("budgetMinPerSecond: Infinity (expected: >= 0.0, finite)");
        assertThatThrownBy(() -> defaults.withRetryFloorPerSecond(-1))
                .hasMessage("retryFloorPerSecond: -1.0 (expected: >= 0.0, finite)");
        assertThatThrownBy(() -> defaults.withBudgetWindow(Duration.ofMillis(500)))
                .hasMessage("budgetWindow: 500ms (expected: >= 1s and <= 60s)");
        assertThatThrownBy(() -> defaults.withBudgetWindow(Duration.ofMinutes(2)))
                .hasMessage("budgetWindow: 2m (expected: >= 1s and <= 60s)");
        assertThatThrownBy(() -> defaults.withTiedDelay(Duration.ofMillis(-1)))
                .hasMessage("tiedDelay: -1ms (expected: >= 0)");
        assertThatThrownBy(() -> defaults.withTiedMaxDelay(Duration.ofMillis(-1)))
                .hasMessage("tiedMaxDelay: -1ms (expected: >= 0)");
        assertThatThrownBy(() -> defaults.withDefaultMode(null))
                .isInstanceOf(NullPointerException.class).hasMessage("defaultMode");
        assertThatThrownBy(() -> defaults.withWindow(null))
                .isInstanceOf(NullPointerException.class).hasMessage("window");
    }
}
