package io.hedgerow.root.tail;

import static io.hedgerow.root.hedge.RequestClass.CHEAP;
import static io.hedgerow.root.hedge.RequestClass.EXPENSIVE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.root.hedge.HedgeDelay;
import io.hedgerow.root.hedge.HedgeSettings;
import io.hedgerow.root.tail.ScaledPercentile.Basis;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class CanaryTimeoutTest {
    private static final long US = 1_000L;
    private static final long MS = 1_000_000L;

    private final ManualTicker ticker = new ManualTicker();
    /** Where sub-request latency is recorded, once, for the hedge delay and the canary timeout alike. */
    private final HedgeDelay latency = new HedgeDelay(HedgeSettings.defaults(), ticker);

    @Test
    void defaultsToThreeTimesTheP99OfLeafLatencyWithinAHundredMillisAndOneSecond() {
        CanaryTimeout timeout = new CanaryTimeout(TailSettings.defaults(), latency, ticker);
        assertThat(timeout.timeoutNanos(CHEAP)).isEqualTo(1_000 * MS); // cold: the maximum
        assertThat(timeout.estimate(CHEAP).basis()).isEqualTo(Basis.TOO_FEW_SAMPLES);

        for (int ms = 1; ms <= 100; ms++) {
            latency.record(CHEAP, ms * MS); // p99 = 99 ms
        }
        ticker.advanceMillis(ScaledPercentile.REFRESH_MILLIS);
        assertThat(timeout.timeoutNanos(CHEAP) / (double) MS).isCloseTo(297, within(3.0));

        HedgeDelay fastLatency = new HedgeDelay(HedgeSettings.defaults(), ticker);
        CanaryTimeout fast = new CanaryTimeout(TailSettings.defaults(), fastLatency, ticker);
        for (int i = 0; i < 1_000; i++) {
            fastLatency.record(CHEAP, 500 * US); // 3 x 0.5 ms: under the 100 ms floor
        }
        assertThat(fast.timeoutNanos(CHEAP)).isEqualTo(100 * MS);
    }

    @Test
    void eachRequestClassLearnsItsOwnTimeout() {
        CanaryTimeout timeout = new CanaryTimeout(TailSettings.defaults(), latency, ticker);
        for (int i = 0; i < 1_000; i++) {
            latency.record(CHEAP, 2 * MS);
            latency.record(EXPENSIVE, 60 * MS);
        }
        ticker.advanceMillis(ScaledPercentile.REFRESH_MILLIS);
        assertThat(timeout.timeoutNanos(CHEAP)).isEqualTo(100 * MS); // 3 x 2 ms, under the floor
        assertThat(timeout.timeoutNanos(EXPENSIVE) / (double) MS).isCloseTo(180, within(1.5));
    }

    @Test
    void aFixedTimeoutIsUsedAsIs() {
        TailSettings settings = TailSettings.defaults()
                .withCanaryTimeout(TailSettings.defaults().canaryTimeout().withFixed(Duration.ofMillis(75)));
        CanaryTimeout timeout = new CanaryTimeout(settings, latency, ticker);
        assertThat(timeout.timeoutNanos(CHEAP)).isEqualTo(75 * MS);
        assertThat(timeout.estimate(CHEAP).basis()).isEqualTo(Basis.FIXED);
    }
}
