package io.hedgerow.common.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.hedgerow.common.time.ManualTicker;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SlidingLatencyWindowTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final ManualTicker ticker = new ManualTicker();
    private final SlidingLatencyWindow window = new SlidingLatencyWindow(ticker, 1000 * MS, 10);

    @Test
    void reportsPercentilesOfRecordedValues() {
        for (int i = 1; i <= 100; i++) {
            window.record(i * MS);
        }
        assertThat(window.count()).isEqualTo(100);
        assertThat((double) window.percentileNanos(50)).isCloseTo(50 * MS, within(1.0 * MS));
        assertThat((double) window.percentileNanos(99)).isCloseTo(99 * MS, within(1.0 * MS));
    }

    @Test
    void forgetsValuesOlderThanTheWindow() {
        window.record(500 * MS);
        ticker.advanceMillis(5_000);
        window.record(10 * MS);
        assertThat(window.count()).isEqualTo(2);
        assertThat((double) window.percentileNanos(100)).isCloseTo(500 * MS, within(5.0 * MS));

        ticker.advanceMillis(5_500); // the first value is now 10.5 s old, the second 5.5 s
        assertThat(window.count()).isEqualTo(1);
        assertThat((double) window.percentileNanos(100)).isCloseTo(10 * MS, within(0.1 * MS));

        ticker.advanceMillis(60_000);
        assertThat(window.count()).isZero();
        assertThat(window.percentileNanos(99)).isZero();
    }

    @Test
    void clampsValuesOutsideTheTrackableRange() {
        window.record(0);
        window.record(TimeUnit.SECONDS.toNanos(3600));
        assertThat(window.count()).isEqualTo(2);
        assertThat(window.percentileNanos(100)).isLessThanOrEqualTo(TimeUnit.SECONDS.toNanos(61));
    }

    /**
     * The window keeps its merged histogram up to date as values come and buckets expire, rather
     * than re-adding every bucket at each read: whatever the order of records, reads and gaps, a
     * read equals a histogram of exactly the values of the buckets still in the window.
     */
    @Test
    void readsExactlyTheValuesOfTheBucketsStillInTheWindow() {
        long seed = Long.getLong("tests.seed", 0x5EEDL);
        java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        ManualTicker ticker = new ManualTicker();
        long bucketNanos = 1_000_000;
        int buckets = 10;
        long origin = ticker.nanoTime();
        SlidingLatencyWindow window = new SlidingLatencyWindow(ticker, bucketNanos, buckets);
        java.util.List<long[]> recorded = new java.util.ArrayList<>(); // {bucket, value}
        for (int step = 0; step < 5_000; step++) {
            int action = random.nextInt(10);
            if (action < 6) {
                long value = 1_000 + random.nextLong(50_000_000);
                recorded.add(new long[] {(ticker.nanoTime() - origin) / bucketNanos, value});
                window.record(value);
            } else if (action < 9) {
                ticker.advance(java.time.Duration.ofNanos(random.nextLong(random.nextInt(20) == 0 ? 15 * bucketNanos : bucketNanos / 3)));
            } else {
                long current = (ticker.nanoTime() - origin) / bucketNanos;
                org.HdrHistogram.Histogram expected = new org.HdrHistogram.Histogram(1_000, 60_000_000_000L, 2);
                for (long[] value : recorded) {
                    if (value[0] > current - buckets) {
                        expected.recordValue(value[1]);
                    }
                }
                SlidingLatencyWindow.Reading reading = window.read(99);
                assertThat(reading.count()).as("seed %d, step %d", seed, step).isEqualTo(expected.getTotalCount());
                assertThat(reading.percentileNanos()).as("seed %d, step %d", seed, step)
                        .isEqualTo(expected.getValueAtPercentile(99));
            }
        }
    }

    @Test
    void aValueRecordedAtAGivenTimeRotatesAsAClockReadThenWould() {
        SlidingLatencyWindow readsClock = new SlidingLatencyWindow(ticker, 1000 * MS, 10);
        SlidingLatencyWindow takesTime = new SlidingLatencyWindow(ticker, 1000 * MS, 10);
        for (int step = 0; step < 300; step++) {
            long value = (1 + step % 37) * MS;
            readsClock.record(value);
            takesTime.record(value, ticker.nanoTime());
            ticker.advanceMillis(137);
            assertThat(takesTime.read(90)).as("step %d", step).isEqualTo(readsClock.read(90));
        }
    }

    @Test
    void aValueTimedBeforeAnotherThreadsRotationLandsInTheCurrentBucket() {
        long before = ticker.nanoTime();
        ticker.advanceMillis(9_500);
        window.record(1 * MS); // rotates: the current bucket is the tenth
        window.record(500 * MS, before); // timed before the rotation, recorded after it
        ticker.advanceMillis(1_000); // the first bucket would have expired; the tenth has not
        assertThat(window.count()).isEqualTo(2);
    }

    @Test
    void windowsSummedReadAsOneWindowOfAllTheirValues() {
        SlidingLatencyWindow other = new SlidingLatencyWindow(ticker, 1000 * MS, 10);
        SlidingLatencyWindow both = new SlidingLatencyWindow(ticker, 1000 * MS, 10);
        for (int i = 1; i <= 200; i++) {
            (i % 3 == 0 ? window : other).record(i * MS);
            both.record(i * MS);
            ticker.advanceMillis(71);
        }
        org.HdrHistogram.Histogram sum = SlidingLatencyWindow.newSum();
        window.addTo(sum);
        other.addTo(sum);
        assertThat(sum.getTotalCount()).isEqualTo(both.count());
        assertThat(sum.getValueAtPercentile(95)).isEqualTo(both.percentileNanos(95));
    }
}
