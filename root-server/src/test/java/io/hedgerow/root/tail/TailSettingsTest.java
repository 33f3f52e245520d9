package io.hedgerow.root.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class TailSettingsTest {
    private final TailSettings defaults = TailSettings.defaults();

    @Test
    void defaultsAreTheDocumentedOnes() {
        assertThat(defaults.canaries()).isEqualTo(1);
        assertThat(defaults.canaryEnabled()).isTrue();
        assertThat(defaults.skipKnownSafe()).isTrue();
        assertThat(defaults.canaryTimeout().describe()).isEqualTo("3 x p99 in [100ms, 1s]");
        assertThat(defaults.cutoff().describe()).isEqualTo("1.5 x p99 in [10ms, 1s]");
        assertThat(defaults.minCoverage()).isEqualTo(0.9);
        assertThat(defaults.window()).isEqualTo(Duration.ofSeconds(10));
        assertThat(defaults.minSamples()).isEqualTo(100);
        assertThat(defaults.blocklistTtl()).isEqualTo(Duration.ofMinutes(10));
        assertThat(defaults.blocklistMaxEntries()).isEqualTo(10_000);
        assertThat(defaults.knownSafeTtl()).isEqualTo(Duration.ofHours(1));
        assertThat(defaults.knownSafeMaxEntries()).isEqualTo(100_000);
        assertThat(defaults.cacheTtl()).isEqualTo(Duration.ofSeconds(30));
        assertThat(defaults.cacheMaxEntries()).isEqualTo(10_000);
        assertThat(defaults.cacheMaxBytes()).isEqualTo(64L << 20);
        assertThat(defaults.cacheEnabled()).isTrue();
    }

    @Test
    void withersChangeOneSetting() {
        assertThat(defaults.withCanaries(0).canaryEnabled()).isFalse();
        assertThat(defaults.withCanaries(2).canaries()).isEqualTo(2);
        assertThat(defaults.withSkipKnownSafe(false).skipKnownSafe()).isFalse();
        assertThat(defaults.withMinCoverage(1.0).minCoverage()).isEqualTo(1.0);
        assertThat(defaults.withCache(Duration.ofSeconds(5), 0, 1).cacheEnabled()).isFalse();
        TailSettings changed = defaults.withBlocklist(Duration.ofMinutes(1), 5).withKnownSafe(Duration.ofSeconds(30), 7);
        assertThat(changed.blocklistTtl()).isEqualTo(Duration.ofMinutes(1));
        assertThat(changed.blocklistMaxEntries()).isEqualTo(5);
        assertThat(changed.knownSafeTtl()).isEqualTo(Duration.ofSeconds(30));
        assertThat(changed.knownSafeMaxEntries()).isEqualTo(7);
        assertThat(changed.withCanaries(2)).isEqualTo(defaults.withCanaries(2)
                .withBlocklist(Duration.ofMinutes(1), 5).withKnownSafe(Duration.ofSeconds(30), 7));
    }

    @Test
    void rejectsInvalidValuesNamingThem() {
        assertThatThrownBy(() -> defaults.withCanaries(3)).hasMessage("canaries: 3 (expected: 0, 1 or 2)");
        assertThatThrownBy(() -> defaults.withCanaries(-1)).hasMessage("canaries: -1 (expected: 0, 1 or 2)");
        assertThatThrownBy(() -> defaults.withMinCoverage(0)).hasMessage("min_coverage: 0.0 (expected: > 0.0 and <= 1.0)");
        assertThatThrownBy(() -> defaults.withMinCoverage(1.01)).hasMessageStartingWith("min_coverage: 1.01");
        assertThatThrownBy(() -> defaults.withMinCoverage(Double.NaN)).hasMessageStartingWith("min_coverage: NaN");
        assertThatThrownBy(() -> defaults.withWindow(Duration.ofMillis(9))).hasMessage("window: 9ms (expected: >= 10ms)");
        assertThatThrownBy(() -> defaults.withMinSamples(0)).hasMessage("minSamples: 0 (expected: >= 1)");
        assertThatThrownBy(() -> defaults.withBlocklist(Duration.ZERO, 10)).hasMessage("blocklistTtl: 0ms (expected: > 0)");
        assertThatThrownBy(() -> defaults.withBlocklist(Duration.ofMinutes(1), 0))
                .hasMessage("blocklistMaxEntries: 0 (expected: >= 1)");
        assertThatThrownBy(() -> defaults.withKnownSafe(Duration.ofMinutes(1), 0))
                .hasMessage("knownSafeMaxEntries: 0 (expected: >= 1)");
        assertThatThrownBy(() -> defaults.withCache(Duration.ofSeconds(1), -1, 10))
                .hasMessage("cacheMaxEntries: -1 (expected: >= 0; 0 turns the cache off)");
        assertThatThrownBy(() -> defaults.withCache(Duration.ofSeconds(1), 10, 0))
                .hasMessage("cacheMaxBytes: 0 (expected: >= 1)");
        assertThatThrownBy(() -> defaults.withCutoff(null)).isInstanceOf(NullPointerException.class).hasMessage("cutoff");
    }
}
