package io.hedgerow.root.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.root.tail.ScaledPercentile.Basis;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class GoodEnoughCutoffTest {
    private static final long MS = 1_000_000L;

    private final ManualTicker ticker = new ManualTicker();

    @Test
    void queriesCutOffAtTheCutoffRaiseItUntilFewerThanOnePercentAreCut() {
        GoodEnoughCutoff cutoff = new GoodEnoughCutoff(TailSettings.defaults(), ticker);
        for (int i = 0; i < 1_000; i++) {
            cutoff.record(2 * MS);
        }
        ticker.advanceMillis(ScaledPercentile.REFRESH_MILLIS);
        long cut = cutoff.cutoffNanos();
        assertThat(cut).isEqualTo(10 * MS); // 1.5 x 2 ms, under the floor
        // A straggler appears: 5% of queries would take 300 ms. Each round, they are cut off at the
        // cutoff in force and recorded there, which raises the p99 to it, and the cutoff by half.
        for (int round = 0; round < 10; round++) {
            ticker.advance(Duration.ofSeconds(11)); // a fresh window
            for (int i = 0; i < 950; i++) {
                cutoff.record(2 * MS);
            }
            for (int i = 0; i < 50; i++) {
                cutoff.record(Math.min(300 * MS, cut));
            }
            ticker.advanceMillis(ScaledPercentile.REFRESH_MILLIS);
            long next = cutoff.cutoffNanos();
            if (cut < 300 * MS) {
                assertThat(next).as("round %d", round).isGreaterThan(cut);
            }
            cut = next;
        }
        // Once it is past the stragglers, they are no longer cut: the cutoff sits at 1.5 x their 300 ms.
        assertThat(cut / (double) MS).isCloseTo(450, within(5.0));
    }

    @Test
    void cutoffFollowsTheWindowOfQueryLatency() {
        GoodEnoughCutoff cutoff = new GoodEnoughCutoff(TailSettings.defaults(), ticker);
        assertThat(cutoff.cutoffNanos()).isEqualTo(1_000 * MS); // cold: the maximum

        for (int ms = 1; ms <= 100; ms++) {
            cutoff.record(ms * MS); // p99 = 99 ms
        }
        ticker.advanceMillis(ScaledPercentile.REFRESH_MILLIS);
        assertThat(cutoff.estimate().basis()).isEqualTo(Basis.WINDOW);
        assertThat(cutoff.cutoffNanos() / (double) MS).isCloseTo(148.5, within(1.5));

        // Ten seconds of faster queries later, the cutoff has come down with them: 1.5 x 8 ms.
        ticker.advance(Duration.ofSeconds(10));
        for (int i = 0; i < 1_000; i++) {
            cutoff.record(8 * MS);
        }
        ticker.advanceMillis(ScaledPercentile.REFRESH_MILLIS);
        assertThat(cutoff.cutoffNanos() / (double) MS).isCloseTo(12, within(0.12));

        // Still faster: the floor, 10 ms.
        ticker.advance(Duration.ofSeconds(11));
        for (int i = 0; i < 1_000; i++) {
            cutoff.record(2 * MS);
        }
        ticker.advanceMillis(ScaledPercentile.REFRESH_MILLIS);
        assertThat(cutoff.cutoffNanos()).isEqualTo(10 * MS);
    }

    @Test
    void stopsWaitingOnlyAfterTheCutoffAndWithEnoughCoverage() {
        long cutoffNanos = 30 * MS;
        // before the cutoff, never, however much has answered
        assertThat(GoodEnoughCutoff.stopWaiting(0.99, 0.95, 29 * MS, cutoffNanos)).isFalse();
        // at and after the cutoff, when coverage reaches the minimum
        assertThat(GoodEnoughCutoff.stopWaiting(0.95, 0.95, 30 * MS, cutoffNanos)).isTrue();
        assertThat(GoodEnoughCutoff.stopWaiting(0.99, 0.95, 31 * MS, cutoffNanos)).isTrue();
        // not with less coverage, however late
        assertThat(GoodEnoughCutoff.stopWaiting(0.9375, 0.95, 900 * MS, cutoffNanos)).isFalse();
        // minimum coverage 1 never stops early for a missing partition
        assertThat(GoodEnoughCutoff.stopWaiting(15 / 16.0, 1.0, 900 * MS, cutoffNanos)).isFalse();
    }

    @Test
    void instanceDecisionUsesTheCurrentCutoff() {
        TailSettings settings = TailSettings.defaults()
                .withCutoff(TailSettings.defaults().cutoff().withFixed(Duration.ofMillis(25)));
        GoodEnoughCutoff cutoff = new GoodEnoughCutoff(settings, ticker);
        assertThat(cutoff.stopWaiting(0.96, 0.95, 24 * MS)).isFalse();
        assertThat(cutoff.stopWaiting(0.96, 0.95, 25 * MS)).isTrue();
        assertThat(cutoff.stopWaiting(0.94, 0.95, 25 * MS)).isFalse();
    }

    @Test
    void coverageComparisonAbsorbsRoundingOfSummedFractions() {
        double sum = 0;
        for (int i = 0; i < 10; i++) {
            sum += 0.1; // 0.9999999999999999
        }
        assertThat(sum).isLessThan(1.0);
        assertThat(GoodEnoughCutoff.covers(sum, 1.0)).isTrue();
        assertThat(GoodEnoughCutoff.covers(0.9999, 1.0)).isFalse();
    }

    @Test
    void maxMissingPartitionsOfEqualSize() {
        assertThat(GoodEnoughCutoff.maxMissingPartitions(16, 0.95)).isZero();
        assertThat(GoodEnoughCutoff.maxMissingPartitions(16, 0.9375)).isEqualTo(1);
        assertThat(GoodEnoughCutoff.maxMissingPartitions(16, 0.9)).isEqualTo(1);
        assertThat(GoodEnoughCutoff.maxMissingPartitions(16, 0.85)).isEqualTo(2);
        assertThat(GoodEnoughCutoff.maxMissingPartitions(16, 1.0)).isZero();
        assertThat(GoodEnoughCutoff.maxMissingPartitions(4, 0.01)).isEqualTo(3);
        assertThatThrownBy(() -> GoodEnoughCutoff.maxMissingPartitions(16, 0))
                .hasMessage("min_coverage: 0.0 (expected: > 0.0 and <= 1.0)");
    }
}
