package io.hedgerow.root.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.root.tail.ScaledPercentile.Basis;
import io.hedgerow.root.tail.ScaledPercentile.Estimate;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ScaledPercentileTest {
    private static final long MS = 1_000_000L;

    private final ManualTicker ticker = new ManualTicker();
    /** 2 x p90 in [5 ms, 500 ms], over 10 s, from 100 samples. */
    private final AdaptiveLimit limit = AdaptiveLimit.adaptive(90, 2, Duration.ofMillis(5), Duration.ofMillis(500));

    private ScaledPercentile newLimit(AdaptiveLimit settings) {
        return new ScaledPercentile(settings, Duration.ofSeconds(10), 100, ticker);
    }

    private static void recordEach(ScaledPercentile target, long fromMillis, long toMillis) {
        for (long ms = fromMillis; ms <= toMillis; ms++) {
            target.record(ms * MS);
        }
    }

    private static void assertMillis(long nanos, double expectedMillis) {
        // HdrHistogram keeps two significant digits: within 1%.
        assertThat(nanos / (double) MS).isCloseTo(expectedMillis, within(expectedMillis * 0.01 + 0.001));
    }

    @Test
    void isTheFactorTimesThePercentileOfTheWindow() {
        ScaledPercentile target = newLimit(limit);
        recordEach(target, 1, 100); // p90 = 90 ms
        assertMillis(target.nanos(), 180);
        assertThat(target.estimate().basis()).isEqualTo(Basis.WINDOW);
    }

    @Test
    void isTheMaximumUntilTheWindowHasEnoughSamples() {
        ScaledPercentile target = newLimit(limit);
        assertThat(target.estimate()).isEqualTo(new Estimate(500 * MS, Basis.TOO_FEW_SAMPLES));
        recordEach(target, 1, 99);
        ticker.advanceMillis(ScaledPercentile.REFRESH_MILLIS);
        assertThat(target.estimate()).isEqualTo(new Estimate(500 * MS, Basis.TOO_FEW_SAMPLES));
        target.record(MS);
        ticker.advanceMillis(ScaledPercentile.REFRESH_MILLIS);
        assertThat(target.estimate().basis()).isEqualTo(Basis.WINDOW);
    }

    @Test
    void clampsToTheBounds() {
        ScaledPercentile fast = newLimit(limit);
        for (int i = 0; i < 100; i++) {
            fast.record(MS); // 2 x 1 ms, under the 5 ms minimum
        }
        assertThat(fast.estimate()).isEqualTo(new Estimate(5 * MS, Basis.WINDOW));

        ScaledPercentile slow = newLimit(limit);
        for (int i = 0; i < 100; i++) {
            slow.record(300 * MS); // 2 x 300 ms, over the 500 ms maximum
        }
        assertThat(slow.estimate()).isEqualTo(new Estimate(500 * MS, Basis.WINDOW));

        ScaledPercentile huge = newLimit(limit.withFactor(1e300));
        recordEach(huge, 1, 100);
        assertThat(huge.nanos()).isEqualTo(500 * MS);
    }

    @Test
    void isCachedForTheRefreshIntervalThenFollowsTheWindow() {
        ScaledPercentile target = newLimit(limit);
        recordEach(target, 1, 100);
        assertMillis(target.nanos(), 180);

        for (int i = 0; i < 10_000; i++) {
            target.record(10 * MS);
        }
        ticker.advanceMillis(ScaledPercentile.REFRESH_MILLIS - 1);
        assertMillis(target.nanos(), 180); // still the cached value
        ticker.advanceMillis(1);
        assertMillis(target.nanos(), 20); // p90 is now 10 ms

        // After the window has passed with no new samples, the limit is the maximum again.
        ticker.advance(Duration.ofSeconds(11));
        assertThat(target.estimate()).isEqualTo(new Estimate(500 * MS, Basis.TOO_FEW_SAMPLES));
    }

    @Test
    void oldSamplesLeaveTheWindow() {
        ScaledPercentile target = newLimit(limit);
        for (int i = 0; i < 200; i++) {
            target.record(300 * MS);
        }
        ticker.advance(Duration.ofSeconds(5));
        for (int i = 0; i < 200; i++) {
            target.record(20 * MS);
        }
        assertThat(target.nanos()).isEqualTo(500 * MS); // 2 x 300 ms, clamped: the slow half is still in
        ticker.advance(Duration.ofSeconds(6)); // the slow half is now more than 10 s old
        assertMillis(target.nanos(), 40);
    }

    @Test
    void aFixedLimitIgnoresTheWindow() {
        ScaledPercentile target = newLimit(limit.withFixed(Duration.ofMillis(750)));
        recordEach(target, 1, 100);
        assertThat(target.estimate()).isEqualTo(new Estimate(750 * MS, Basis.FIXED));
    }
}
