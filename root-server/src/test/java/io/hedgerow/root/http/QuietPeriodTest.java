package io.hedgerow.root.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.time.ManualTicker;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class QuietPeriodTest {
    private final ManualTicker clock = new ManualTicker().advance(Duration.ofHours(1));

    @Test
    void closesIdleConnectionsOnlyOnceNothingHasArrivedForTheQuietPeriod() {
        QuietPeriod period = new QuietPeriod(clock.nanoTime(), Duration.ofMillis(500), Duration.ofSeconds(30));
        clock.advanceMillis(499);
        assertThat(period.quiet(clock.nanoTime())).as("499 ms after the stop").isFalse();
        clock.advanceMillis(1);
        assertThat(period.quiet(clock.nanoTime())).as("500 ms after the stop, nothing read").isTrue();

        period.read(clock.nanoTime()); // a client writes on a connection at t=500 ms
        clock.advanceMillis(300);
        assertThat(period.quiet(clock.nanoTime())).as("300 ms after the last read").isFalse();
        clock.advanceMillis(200);
        assertThat(period.quiet(clock.nanoTime())).as("500 ms after the last read").isTrue();
    }

    @Test
    void anEarlierReadReportedLateDoesNotShortenTheWait() {
        QuietPeriod period = new QuietPeriod(clock.nanoTime(), Duration.ofMillis(500), Duration.ofSeconds(30));
        clock.advanceMillis(400);
        long late = clock.nanoTime();
        period.read(late);
        period.read(late - 300_000_000L); // another event loop's read, stamped earlier, recorded after
        clock.advanceMillis(499);
        assertThat(period.quiet(clock.nanoTime())).isFalse();
        clock.advanceMillis(1);
        assertThat(period.quiet(clock.nanoTime())).isTrue();
    }

    @Test
    void theDeadlineCountsFromTheStopWhateverArrives() {
        QuietPeriod period = new QuietPeriod(clock.nanoTime(), Duration.ofMillis(500), Duration.ofSeconds(2));
        for (int i = 0; i < 19; i++) {
            clock.advanceMillis(100);
            period.read(clock.nanoTime());
            assertThat(period.pastDeadline(clock.nanoTime())).as("at %d ms", (i + 1) * 100).isFalse();
        }
        clock.advanceMillis(100);
        assertThat(period.quiet(clock.nanoTime())).as("a client still sending").isFalse();
        assertThat(period.pastDeadline(clock.nanoTime())).as("2 s after the stop").isTrue();
    }

    @Test
    void refusesNegativeDurations() {
        assertThatThrownBy(() -> new QuietPeriod(0, Duration.ofMillis(-1), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expected: >= 0");
    }
}
