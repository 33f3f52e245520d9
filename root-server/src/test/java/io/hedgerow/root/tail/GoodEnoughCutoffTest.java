package io.hedgerow.root.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.root.hedge.RequestClass;
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
            record(cutoff, 2 * MS);
        }
        ticker.advanceMillis(ScaledPercentile.REFRESH_MILLIS);
        long cut = cutoffNanos(cutoff);
        assertThat(cut).isEqualTo(10 * MS); // 1.5 x 2 ms, under the floor
        // A straggler appears: 5% of queries would take 300 ms. Each round, they are cut off at the
        // cutoff in force and recorded there, which raises the p99 to it, and the cutoff by half.
        for (int round = 0; round < 10; round++) {
            ticker.advance(Duration.ofSeconds(11)); // a fresh window
            for (int i = 0; i < 950; i++) {
                record(cutoff, 2 * MS);
            }
            for (int i = 0; i < 50; i++) {
                record(cutoff, Math.min(300 * MS, cut));
            }
            ticker.advanceMillis(ScaledPercentile.REFRESH_MILLIS);
            long next = cutoffNanos(cutoff);
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
        assertThat(cutoffNanos(cutoff)).isEqualTo(1_000 * MS); // cold: the maximum

        for (int ms = 1; ms <= 100; ms++) {
            record(cutoff, ms * MS); // p99 = 99 ms
        }
        ticker.advanceMillis(ScaledPercentile.REFRESH_MILLIS);
        assertThat(cutoff.estimate(RequestClass.CHEAP, 0.9).basis()).isEqualTo(Basis.WINDOW);
        assertThat(cutoffNanos(cutoff) / (double) MS).isCloseTo(148.5, within(1.5));

        // Ten seconds of faster queries later, the cutoff has come down with them: 1.5 x 8 ms.
        ticker.advance(Duration.ofSeconds(10));
        for (int i = 0; i < 1_000; i++) {
            record(cutoff, 8 * MS);
        }
        ticker.advanceMillis(ScaledPercentile.REFRESH_MILLIS);
        assertThat(cutoffNanos(cutoff) / (double) MS).isCloseTo(12, within(0.12));

        // Still faster: the floor, 10 ms.
        ticker.advance(Duration.ofSeconds(11));
        for (int i = 0; i < 1_000; i++) {
            record(cutoff, 2 * MS);
        }
        ticker.advanceMillis(ScaledPercentile.REFRESH_MILLIS);
        assertThat(cutoffNanos(cutoff)).isEqualTo(10 * MS);
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
    void aFixedCutoffIsTheSameForEveryClassAndCoverage() {
        TailSettings settings = TailSettings.defaults()
                .withCutoff(TailSettings.defaults().cutoff().withFixed(Duration.ofMillis(25)));
        GoodEnoughCutoff cutoff = new GoodEnoughCutoff(settings, ticker);
        assertThat(cutoff.cutoffNanos(RequestClass.CHEAP, 0.9)).isEqualTo(25 * MS);
        assertThat(cutoff.cutoffNanos(RequestClass.EXPENSIVE, 0.5)).isEqualTo(25 * MS);
        assertThat(cutoff.cutoffNanos(RequestClass.CHEAP, 1.0)).as("never cut").isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void eachRequestClassAndMinimumCoverageLearnsItsOwnCutoff() {
        GoodEnoughCutoff cutoff = new GoodEnoughCutoff(TailSettings.defaults(), ticker);
        for (int i = 0; i < 1_000; i++) {
            cutoff.record(RequestClass.CHEAP, 0.9, 20 * MS);
            cutoff.record(RequestClass.EXPENSIVE, 0.9, 200 * MS);
            cutoff.record(RequestClass.CHEAP, 0.5, 40 * MS);
            cutoff.record(RequestClass.CHEAP, 1.0, 900 * MS); // never cut: not recorded anywhere
        }
        ticker.advanceMillis(ScaledPercentile.REFRESH_MILLIS);
        assertThat(cutoff.cutoffNanos(RequestClass.CHEAP, 0.9) / (double) MS).isCloseTo(30, within(0.5));
        assertThat(cutoff.cutoffNanos(RequestClass.EXPENSIVE, 0.9) / (double) MS).isCloseTo(300, within(3.0));
        assertThat(cutoff.cutoffNanos(RequestClass.CHEAP, 0.5) / (double) MS).isCloseTo(60, within(0.6));
        // Minimum coverages within one 5% step share a window; the next step has its own (still cold).
        assertThat(cutoff.cutoffNanos(RequestClass.CHEAP, 0.87)).isEqualTo(cutoff.cutoffNanos(RequestClass.CHEAP, 0.9));
        assertThat(cutoff.cutoffNanos(RequestClass.CHEAP, 0.95)).isEqualTo(1_000 * MS);
        assertThat(cutoff.cutoffNanos(RequestClass.CHEAP, 1.0)).isEqualTo(Long.MAX_VALUE);
        assertThat(GoodEnoughCutoff.coverageStep(0.9)).isEqualTo(90);
        assertThat(GoodEnoughCutoff.coverageStep(0.901)).isEqualTo(90);
        assertThat(GoodEnoughCutoff.coverageStep(0.91)).isEqualTo(95);
        assertThat(GoodEnoughCutoff.coverageStep(0.01)).isEqualTo(5);
    }

    private static void record(GoodEnoughCutoff cutoff, long nanos) {
        cutoff.record(RequestClass.CHEAP, 0.9, nanos);
    }

    private static long cutoffNanos(GoodEnoughCutoff cutoff) {
        return cutoff.cutoffNanos(RequestClass.CHEAP, 0.9);
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
