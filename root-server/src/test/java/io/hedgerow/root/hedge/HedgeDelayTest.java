package io.hedgerow.root.hedge;

import static io.hedgerow.root.hedge.RequestClass.CHEAP;
import static io.hedgerow.root.hedge.RequestClass.EXPENSIVE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.root.hedge.HedgeDelay.Basis;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class HedgeDelayTest {
    private static final long US = 1_000L;
    private static final long MS = 1_000_000L;

    private final ManualTicker ticker = new ManualTicker();

    /** p95 of the last 10 s, clamped to [1 ms, 1 s], from 100 samples. */
    private final HedgeSettings settings = HedgeSettings.defaults()
            .withDelayBounds(Duration.ofMillis(1), Duration.ofSeconds(1))
            .withMinSamples(100);

    private static void recordEach(HedgeDelay delay, RequestClass requestClass, long fromMillis, long toMillis) {
        for (long ms = fromMillis; ms <= toMillis; ms++) {
            delay.record(requestClass, ms * MS);
        }
    }

    private static void recordMany(HedgeDelay delay, RequestClass requestClass, int count, long latencyNanos) {
        for (int i = 0; i < count; i++) {
            delay.record(requestClass, latencyNanos);
        }
    }

    private static void assertMillis(long nanos, double expectedMillis) {
        // HdrHistogram keeps two significant digits: within 1%.
        assertThat(nanos / (double) MS).isCloseTo(expectedMillis, within(expectedMillis * 0.01 + 0.001));
    }

    @Test
    void delayIsThePercentileOfTheClassWindow() {
        HedgeDelay delay = new HedgeDelay(settings, ticker);
        recordEach(delay, CHEAP, 1, 100);          // p95 = 95 ms
        recordEach(delay, EXPENSIVE, 101, 300);    // p95 = 290 ms

        assertMillis(delay.delayNanos(CHEAP), 95);
        assertThat(delay.estimate(CHEAP).basis()).isEqualTo(Basis.CLASS_WINDOW);
        assertMillis(delay.delayNanos(EXPENSIVE), 290);

        HedgeDelay p50 = new HedgeDelay(settings.withPercentile(50), ticker);
        recordEach(p50, CHEAP, 1, 100);
        assertMillis(p50.delayNanos(CHEAP), 50);
    }

    @Test
    void clampsToTheMinimumAndTheMaximum() {
        HedgeDelay fast = new HedgeDelay(settings, ticker);
        recordMany(fast, CHEAP, 100, 200 * US);
        assertThat(fast.delayNanos(CHEAP)).isEqualTo(1 * MS);
        assertThat(fast.estimate(CHEAP).basis()).isEqualTo(Basis.CLASS_WINDOW);

        HedgeDelay slow = new HedgeDelay(settings, ticker);
        recordMany(slow, CHEAP, 100, 5_000 * MS);
        assertThat(slow.delayNanos(CHEAP)).isEqualTo(1_000 * MS);
    }

    @Test
    void aClassWithTooFewSamplesUsesTheGlobalWindowThenTheMaximum() {
        HedgeDelay delay = new HedgeDelay(settings, ticker);
        recordMany(delay, EXPENSIVE, 99, 50 * MS);
        // 99 samples in all: not enough anywhere
        assertThat(delay.estimate(EXPENSIVE)).isEqualTo(new HedgeDelay.Estimate(1_000 * MS, Basis.TOO_FEW_SAMPLES));
        assertThat(delay.estimate(CHEAP)).isEqualTo(new HedgeDelay.Estimate(1_000 * MS, Basis.TOO_FEW_SAMPLES));

        recordMany(delay, CHEAP, 1_900, 5 * MS);
        ticker.advanceMillis(HedgeDelay.REFRESH_MILLIS);
        // expensive has 99 of its own: it borrows the global p95, where its 99 of 1,999 sit above 95%
        assertMillis(delay.delayNanos(EXPENSIVE), 5);
        assertThat(delay.estimate(EXPENSIVE).basis()).isEqualTo(Basis.GLOBAL_WINDOW);
        assertMillis(delay.delayNanos(CHEAP), 5);
        assertThat(delay.estimate(CHEAP).basis()).isEqualTo(Basis.CLASS_WINDOW);

        delay.record(EXPENSIVE, 50 * MS);
        ticker.advanceMillis(HedgeDelay.REFRESH_MILLIS);
        assertMillis(delay.delayNanos(EXPENSIVE), 50);
        assertThat(delay.estimate(EXPENSIVE).basis()).isEqualTo(Basis.CLASS_WINDOW);
    }

    @Test
    void aColdRootHedgesAtTheMaximum() {
        HedgeDelay delay = new HedgeDelay(HedgeSettings.defaults(), ticker);
        assertThat(delay.delayNanos(CHEAP)).isEqualTo(100 * MS);
        assertThat(delay.delayNanos(EXPENSIVE)).isEqualTo(100 * MS);
    }

    @Test
    void aFixedDelayIgnoresTheWindowsAndTheBounds() {
        HedgeDelay delay = new HedgeDelay(settings.withFixedDelay(Duration.ofMillis(2_500)), ticker);
        recordMany(delay, CHEAP, 1_000, 3 * MS);
        assertThat(delay.estimate(CHEAP)).isEqualTo(new HedgeDelay.Estimate(2_500 * MS, Basis.FIXED));
        assertThat(delay.delayNanos(EXPENSIVE)).isEqualTo(2_500 * MS);

        HedgeDelay zero = new HedgeDelay(settings.withFixedDelay(Duration.ZERO), ticker);
        assertThat(zero.delayNanos(CHEAP)).isZero();
    }

    @Test
    void theWindowForgetsOldSamples() {
        HedgeDelay delay = new HedgeDelay(settings, ticker);
        recordMany(delay, CHEAP, 200, 50 * MS);
        assertMillis(delay.delayNanos(CHEAP), 50);

        ticker.advanceMillis(5_000);
        recordMany(delay, CHEAP, 200, 5 * MS);
        assertMillis(delay.delayNanos(CHEAP), 50); // half the window is still at 50 ms

        ticker.advanceMillis(5_500); // the 50 ms samples are 10.5 s old
        assertMillis(delay.delayNanos(CHEAP), 5);

        ticker.advanceMillis(60_000); // everything has gone
        assertThat(delay.estimate(CHEAP)).isEqualTo(new HedgeDelay.Estimate(1_000 * MS, Basis.TOO_FEW_SAMPLES));
    }

    @Test
    void theEstimateIsCachedForAHundredMillisecondsPerClass() {
        HedgeDelay delay = new HedgeDelay(settings, ticker);
        recordMany(delay, CHEAP, 200, 10 * MS);
        recordMany(delay, EXPENSIVE, 200, 10 * MS);
        assertMillis(delay.delayNanos(CHEAP), 10);

        ticker.advanceMillis(50);
        assertMillis(delay.delayNanos(EXPENSIVE), 10); // expensive's cache runs from here
        recordMany(delay, CHEAP, 2_000, 40 * MS);
        recordMany(delay, EXPENSIVE, 2_000, 40 * MS);
        assertMillis(delay.delayNanos(CHEAP), 10);

        ticker.advanceMillis(49);
        assertMillis(delay.delayNanos(CHEAP), 10);  // 99 ms since cheap's last computation

        ticker.advanceMillis(1);
        assertMillis(delay.delayNanos(CHEAP), 40);  // 100 ms: recomputed
        assertMillis(delay.delayNanos(EXPENSIVE), 10); // 50 ms since expensive's

        ticker.advanceMillis(50);
        assertMillis(delay.delayNanos(EXPENSIVE), 40);
    }
}
