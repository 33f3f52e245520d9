package io.hedgerow.common.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {
    private final Backoff backoff = Backoff.exponential(Duration.ofMillis(50), Duration.ofSeconds(2));

    @Test
    void doublesTheCeilingPerAttemptUpToTheMaximum() {
        assertThat(backoff.ceilingNanos(0)).isEqualTo(50_000_000L);
        assertThat(backoff.ceilingNanos(1)).isEqualTo(100_000_000L);
        assertThat(backoff.ceilingNanos(5)).isEqualTo(1_600_000_000L);
        assertThat(backoff.ceilingNanos(6)).isEqualTo(2_000_000_000L);
        assertThat(backoff.ceilingNanos(1000)).isEqualTo(2_000_000_000L);
    }

    @Test
    void waitsBetweenHalfTheCeilingAndTheCeiling() {
        assertThat(backoff.delayNanos(1, 0.0)).isEqualTo(50_000_000L);
        assertThat(backoff.delayNanos(1, 0.5)).isEqualTo(75_000_000L);
        assertThat(backoff.delayNanos(1, 0.999999)).isLessThanOrEqualTo(100_000_000L).isGreaterThan(99_000_000L);
    }

    @Test
    void rejectsInvalidSettingsNamingTheValue() {
        assertThatThrownBy(() -> new Backoff(0, 10)).hasMessageContaining("initialNanos: 0");
        assertThatThrownBy(() -> new Backoff(10, 5)).hasMessageContaining("maxNanos: 5");
        assertThatThrownBy(() -> backoff.delayNanos(0, 1.0)).hasMessageContaining("uniform: 1.0");
    }
}
