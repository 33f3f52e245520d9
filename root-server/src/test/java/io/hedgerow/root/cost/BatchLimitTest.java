package io.hedgerow.root.cost;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The batch limit's rules, scripted on a manual clock with 100 ms windows: it starts at its floor,
 * grows by one a window while the interactive p99 stays near its best, halves when the p99 rises
 * past 1.5 times it, and ignores windows with too few interactive answers to say anything.
 */
@Timeout(10)
class BatchLimitTest {
    private static final BatchAdmissionSettings SETTINGS = new BatchAdmissionSettings(8, 1, Duration.ofMillis(100),
            1.5, Duration.ofMillis(2), 10, 20);

    private final ManualTicker ticker = new ManualTicker();
    private final BatchLimit limit = new BatchLimit(SETTINGS, ticker);

    @Test
    void startsAtItsFloorAndGrowsByOneEachCalmWindowUpToItsCeiling() {
        assertThat(limit.limit()).isEqualTo(1);
        for (int window = 1; window <= 10; window++) {
            window(100, 5);
            assertThat(limit.limit()).as("after window %d", window).isEqualTo(Math.min(8, 1 + window));
        }
        assertThat(limit.baselineNanos()).isEqualTo(ms(5));
    }

    @Test
    void halvesWhenTheInteractiveP99RisesPastToleranceTimesItsBest() {
        for (int i = 0; i < 7; i++) {
            window(100, 5); // limit 8, best p99 5 ms
        }
        assertThat(limit.limit()).isEqualTo(8);

        window(100, 7); // 1.4 x: calm
        assertThat(limit.limit()).isEqualTo(8);
        window(100, 8); // 1.6 x: hurt
        assertThat(limit.limit()).isEqualTo(4);
        window(100, 20);
        assertThat(limit.limit()).isEqualTo(2);
        window(100, 20);
        window(100, 20);
        assertThat(limit.limit()).as("never under the floor").isEqualTo(1);
        assertThat(limit.lastP99Nanos()).isEqualTo(ms(20));

        window(100, 6); // back near the best
        assertThat(limit.limit()).isEqualTo(2);
    }

    @Test
    void readsTheP99OfTheWindowNotItsMedian() {
        for (int i = 0; i < 7; i++) {
            window(100, 5);
        }
        // 98 fast answers and 2 slow ones: the p99 is slow.
        for (int i = 0; i < 98; i++) {
            limit.recordInteractive(ms(1));
        }
        limit.recordInteractive(ms(30));
        limit.recordInteractive(ms(30));
        ticker.advanceMillis(100);

        assertThat(limit.limit()).isEqualTo(4);
        assertThat(limit.lastP99Nanos()).isEqualTo(ms(30));
    }

    @Test
    void aP99UnderTheFloorNeverLowersIt() {
        for (int i = 0; i < 7; i++) {
            window(100, 0.2);
        }
        window(100, 1.5); // 7.5 x the best, but under 2 ms: noise
        assertThat(limit.limit()).isEqualTo(8);
    }

    @Test
    void windowsWithTooFewInteractiveAnswersRaiseIt() {
        window(19, 50); // few, and slow: nothing to protect
        assertThat(limit.limit()).isEqualTo(2);
        ticker.advanceMillis(100); // none at all
        assertThat(limit.limit()).isEqualTo(3);
        assertThat(limit.lastP99Nanos()).isZero();
    }

    @Test
    void forgetsTheBestP99AfterItsBaselineWindows() {
        window(100, 1);
        for (int i = 0; i < 9; i++) {
            window(100, 1.4); // within 1.5 x of the best
        }
        assertThat(limit.limit()).isEqualTo(8);
        window(100, 2.4); // the 1 ms window has rolled out: the best is 1.4 ms now, and 2.4 > 2.1
        assertThat(limit.baselineNanos()).isEqualTo(msFraction(1.4));
        assertThat(limit.limit()).isEqualTo(4);
    }

    /** {@code answers} interactive answers of {@code p99Millis} each in one window, then the window closes. */
    private void window(int answers, double millis) {
        for (int i = 0; i < answers; i++) {
            limit.recordInteractive(msFraction(millis));
        }
        ticker.advanceMillis(100);
    }

    private static long ms(long millis) {
        return Duration.ofMillis(millis).toNanos();
    }

    private static long msFraction(double millis) {
        return Math.round(millis * 1_000_000);
    }
}
