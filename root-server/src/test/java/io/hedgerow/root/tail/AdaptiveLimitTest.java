package io.hedgerow.root.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class AdaptiveLimitTest {
    private final AdaptiveLimit limit = AdaptiveLimit.adaptive(99, 3, Duration.ofMillis(20), Duration.ofSeconds(1));

    @Test
    void describesItselfForHelpAndLogs() {
        assertThat(limit.describe()).isEqualTo("3 x p99 in [20ms, 1s]");
        assertThat(limit.withFactor(1.5).withPercentile(99.9).describe()).isEqualTo("1.5 x p99.9 in [20ms, 1s]");
        assertThat(limit.withFixed(Duration.ofMillis(150)).describe()).isEqualTo("fixed 150ms");
        assertThat(limit.withFixed(Duration.ofMillis(150)).withFixed(null).isAdaptive()).isTrue();
    }

    @Test
    void rejectsInvalidValuesNamingThem() {
        assertThatThrownBy(() -> limit.withPercentile(0))
                .hasMessage("percentile: 0.0 (expected: > 0 and <= 100)");
        assertThatThrownBy(() -> limit.withPercentile(100.1)).hasMessageStartingWith("percentile: 100.1");
        assertThatThrownBy(() -> limit.withFactor(0.5)).hasMessage("factor: 0.5 (expected: >= 1.0, finite)");
        assertThatThrownBy(() -> limit.withFactor(Double.NaN)).hasMessageStartingWith("factor: NaN");
        assertThatThrownBy(() -> limit.withBounds(Duration.ofMillis(-1), Duration.ofSeconds(1)))
                .hasMessage("min: -1ms (expected: >= 0)");
        assertThatThrownBy(() -> limit.withBounds(Duration.ofMillis(50), Duration.ofMillis(20)))
                .hasMessage("max: 20ms (expected: > 0 and >= min 50ms)");
        assertThatThrownBy(() -> limit.withBounds(Duration.ZERO, Duration.ZERO)).hasMessageStartingWith("max: 0ms");
        assertThatThrownBy(() -> limit.withFixed(Duration.ZERO)).hasMessage("fixed: 0ms (expected: > 0)");
    }

    @Test
    void boundsMayBeRaisedTogether() {
        AdaptiveLimit raised = limit.withBounds(Duration.ofSeconds(2), Duration.ofSeconds(5));
        assertThat(raised.min()).isEqualTo(Duration.ofSeconds(2));
        assertThat(raised.max()).isEqualTo(Duration.ofSeconds(5));
    }
}
