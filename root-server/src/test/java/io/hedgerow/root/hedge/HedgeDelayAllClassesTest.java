package io.hedgerow.root.hedge;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.stats.SlidingLatencyWindow;
import io.hedgerow.common.time.ManualTicker;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The hedge delay's window of all classes is no longer recorded into: it is the class windows
 * summed when read. Scripted on a manual clock, it reads as a window fed every sample would, across
 * bucket rotations and expiry.
 */
@Timeout(10)
class HedgeDelayAllClassesTest {
    private static final long MS = 1_000_000L;
    private static final long SEED = 20261129L;

    /** What the delay kept before: one window, of the same width, that every answer went into as well. */
    private static SlidingLatencyWindow recordedWindow(HedgeSettings settings, ManualTicker ticker) {
        return new SlidingLatencyWindow(ticker, settings.window().toNanos() / 10, 10);
    }

    @Test
    void theAllClassesReadingIsTheWindowEverySampleWouldHaveGoneTo() {
        ManualTicker ticker = new ManualTicker();
        HedgeSettings settings = HedgeSettings.defaults();
        HedgeDelay delay = new HedgeDelay(settings, ticker);
        SlidingLatencyWindow every = recordedWindow(settings, ticker);
        SplittableRandom random = new SplittableRandom(SEED);
        RequestClass[] classes = RequestClass.values();

        for (int step = 0; step < 400; step++) {
            RequestClass requestClass = classes[random.nextInt(classes.length)];
            long latencyNanos = 1 + random.nextLong(200 * MS);
            if (step % 2 == 0) {
                delay.record(requestClass, latencyNanos, ticker.nanoTime());
            } else {
                delay.record(requestClass, latencyNanos);
            }
            every.record(latencyNanos);
            ticker.advance(Duration.ofMillis(random.nextInt(120))); // ~60 ms a step: buckets rotate and expire as it goes
            if (step % 25 == 0) {
                for (double percentile : new double[] {50, 95, 99.9}) {
                    assertThat(delay.readAllClasses(percentile))
                            .as("step %d, p%s (seed %d)", step, percentile, SEED)
                            .isEqualTo(every.read(percentile));
                }
            }
        }
        ticker.advance(Duration.ofSeconds(7)); // the older buckets expire, in the sum as in the one window
        assertThat(delay.readAllClasses(95)).isEqualTo(every.read(95));
        assertThat(every.read(95).count()).as("some samples left, some gone").isPositive();
        ticker.advance(Duration.ofSeconds(30));
        assertThat(delay.readAllClasses(95)).isEqualTo(every.read(95));
        assertThat(every.read(95).count()).isZero();
    }

    @Test
    void aClassWithTooFewSamplesBorrowsTheSumOfTheOthers() {
        ManualTicker ticker = new ManualTicker();
        HedgeSettings settings = HedgeSettings.defaults().withDelayBounds(Duration.ofMillis(1), Duration.ofSeconds(1))
                .withMinSamples(100);
        HedgeDelay delay = new HedgeDelay(settings, ticker);
        for (int ms = 1; ms <= 60; ms++) {
            delay.record(RequestClass.CHEAP, ms * MS, ticker.nanoTime());
        }
        for (int ms = 61; ms <= 100; ms++) {
            delay.record(RequestClass.BATCH, ms * MS, ticker.nanoTime());
        }

        HedgeDelay.Estimate expensive = delay.estimate(RequestClass.EXPENSIVE);
        assertThat(expensive.basis()).isEqualTo(HedgeDelay.Basis.GLOBAL_WINDOW);
        assertThat(expensive.delayNanos() / (double) MS).as("p95 of 1..100 ms, from two classes").isBetween(94.0, 96.0);
    }
}
