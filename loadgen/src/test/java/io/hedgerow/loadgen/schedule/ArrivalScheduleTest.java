package io.hedgerow.loadgen.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ArrivalScheduleTest {
    /**
     * Fixed, so a run is repeatable; {@code -Dtests.seed=N} tries another, and every assertion
     * message names the seed it ran with.
     */
    private static final long SEED = Long.getLong("tests.seed", 20261122L);

    @Test
    void constantScheduleSpacesRequestsEvenly() {
        ArrivalSchedule schedule = ArrivalSchedule.constant(4000);
        for (int i = 0; i < 10; i++) {
            assertThat(schedule.nextGapNanos()).isEqualTo(250_000);
        }
    }

    @Test
    void poissonGapsHaveTheMeanAndVarianceOfAnExponential() {
        long seed = SEED;
        String rerun = "seed " + seed + " (rerun with -Dtests.seed=" + seed + ")";
        double rate = 2000;
        ArrivalSchedule schedule = ArrivalSchedule.poisson(rate, seed);
        int n = 200_000;
        double sum = 0;
        double sumOfSquares = 0;
        long[] countsPerSecond = new long[200];
        long time = 0;
        for (int i = 0; i < n; i++) {
            long gap = schedule.nextGapNanos();
            sum += gap;
            sumOfSquares += (double) gap * gap;
            time += gap;
            int second = (int) (time / 1_000_000_000L);
            if (second < countsPerSecond.length) {
                countsPerSecond[second]++;
            }
        }
        double mean = sum / n;
        double variance = sumOfSquares / n - mean * mean;
        double expectedMean = 1e9 / rate;
        // Exponential: standard deviation equals the mean. n = 200k gives ~0.2% standard error.
        assertThat(mean).as(rerun).isCloseTo(expectedMean, within(expectedMean * 0.02));
        assertThat(Math.sqrt(variance)).as(rerun).isCloseTo(expectedMean, within(expectedMean * 0.03));
        // Counts per second are Poisson: mean and variance both equal the rate.
        double countMean = java.util.Arrays.stream(countsPerSecond, 0, 90).average().orElseThrow();
        double countVariance = java.util.Arrays.stream(countsPerSecond, 0, 90)
                .mapToDouble(c -> (c - countMean) * (c - countMean)).sum() / 89;
        assertThat(countMean).as(rerun).isCloseTo(rate, within(rate * 0.02));
        assertThat(countVariance).as(rerun).isBetween(rate * 0.5, rate * 1.6);
    }

    @Test
    void poissonScheduleIsReproducibleFromItsSeed() {
        ArrivalSchedule a = ArrivalSchedule.poisson(100, 7);
        ArrivalSchedule b = ArrivalSchedule.poisson(100, 7);
        for (int i = 0; i < 1000; i++) {
            assertThat(a.nextGapNanos()).isEqualTo(b.nextGapNanos());
        }
    }

    @Test
    void refusesANonPositiveRate() {
        assertThatThrownBy(() -> ArrivalSchedule.constant(0)).hasMessageContaining("rate: 0.0 (expected: > 0");
        assertThatThrownBy(() -> ArrivalSchedule.poisson(-5, 1)).hasMessageContaining("rate: -5.0");
    }
}
