package io.hedgerow.root.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.root.tail.ScaledPercentile.Basis;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class CanaryTimeoutTest {
    private static final long US = 1_000L;
    private static final long MS = 1_000_000L;

    private final ManualTicker ticker = new ManualTicker();

    @Test
    void defaultsToThreeTimesTheP99OfLeafLatencyWithinTwentyMillisAndOneSecond() {
        CanaryTimeout timeout = new CanaryTimeout(TailSettings.defaults(), ticker);
        assertThat(timeout.timeoutNanos()).isEqualTo(1_000 * MS); // cold: the maximum
        assertThat(timeout.estimate().basis()).isEqualTo(Basis.TOO_FEW_SAMPLES);

        for (int ms = 1; ms <= 100; ms++) {
            timeout.record(ms * MS); // p99 = 99 ms
        }
        ticker.advanceMillis(ScaledPercentile.REFRESH_MILLIS);
        assertThat(timeout.timeoutNanos() / (double) MS).isCloseTo(297, within(3.0));

        CanaryTimeout fast = new CanaryTimeout(TailSettings.defaults(), ticker);
        for (int i = 0; i < 1_000; i++) {
            fast.record(500 * US); // 3 x 0.5 ms: under the 20 ms floor
        }
        assertThat(fast.timeoutNanos()).isEqualTo(20 * MS);
    }

    @Test
    void aFixedTimeoutIsUsedAsIs() {
        TailSettings settings = TailSettings.defaults()
                .withCanaryTimeout(TailSettings.defaults().canaryTimeout().withFixed(Duration.ofMillis(75)));
        CanaryTimeout timeout = new CanaryTimeout(settings, ticker);
        assertThat(timeout.timeoutNanos()).isEqualTo(75 * MS);
        assertThat(timeout.estimate().basis()).isEqualTo(Basis.FIXED);
    }
}
