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
}
