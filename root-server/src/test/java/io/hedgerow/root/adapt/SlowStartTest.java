package io.hedgerow.root.adapt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.hedgerow.common.time.ManualTicker;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Slow start on a manual clock, with scripted answers: the shares exactly. */
class SlowStartTest {
    private static final long MS = 1_000_000L;
    private final ManualTicker clock = new ManualTicker().advance(Duration.ofHours(1));
    private final SlowStart slowStart = new SlowStart(3, Duration.ofSeconds(10));

    @Test
    void aLeafOutOfSlowStartGetsItsWholeShare() {
        assertThat(slowStart.share(0, now())).isEqualTo(1.0);
        assertThat(slowStart.inSlowStart(0)).isFalse();
    }

    @Test
    void theShareGrowsWithTimeFromTenPercentWhileTheLeafIsAsFastAsItsPeers() {
        slowStart.begin(2, now());
        assertThat(slowStart.share(2, now())).as("at once").isEqualTo(SlowStart.MIN_SHARE);
        clock.advance(Duration.ofSeconds(3));
        answers(0, 20, 2 * MS);
        answers(2, 20, 2 * MS);
        assertThat(slowStart.share(2, now())).as("3 s of 10 s").isCloseTo(0.3, within(1e-9));
        clock.advance(Duration.ofSeconds(6));
        assertThat(slowStart.share(2, now())).as("9 s").isCloseTo(0.9, within(1e-9));
        assertThat(slowStart.inSlowStart(2)).isTrue();
        clock.advance(Duration.ofSeconds(1));
        assertThat(slowStart.share(2, now())).as("10 s, as fast as its peers: over").isEqualTo(1.0);
        assertThat(slowStart.inSlowStart(2)).isFalse();
        assertThat(slowStart.count()).isZero();
    }

    @Test
    void aSlowLeafsShareIsItsPeersLatencyOverItsOwnAndItsSlowStartLastsUntilItIsFastEnough() {
        slowStart.begin(1, now());
        answers(0, 20, 2 * MS);
        answers(1, 20, 10 * MS); // 5 times slower than its peers
        clock.advance(Duration.ofSeconds(8));
        assertThat(slowStart.share(1, now())).as("capped by latency: 2/10").isCloseTo(0.2, within(1e-9));

        answers(1, 1, 90 * MS); // its EWMA: 10 + 0.2 x 80 = 26 ms, 2/26 < 0.1
        assertThat(slowStart.share(1, now())).as("never under the minimum").isEqualTo(SlowStart.MIN_SHARE);

        clock.advance(Duration.ofSeconds(4)); // 12 s: past the window, still 13 times slower
        assertThat(slowStart.share(1, now())).isEqualTo(SlowStart.MIN_SHARE);
        assertThat(slowStart.inSlowStart(1)).isTrue();

        answers(1, 30, 2 * MS); // compiled: its EWMA comes down to about 2 ms
        assertThat(slowStart.share(1, now())).as("within 1.5x of its peers past the window: over").isEqualTo(1.0);
        assertThat(slowStart.inSlowStart(1)).isFalse();
    }

    @Test
    void aLeafSlowForGoodLeavesSlowStartAfterFourWindowsForProbationToJudge() {
        slowStart.begin(1, now());
        answers(0, 20, 2 * MS);
        answers(1, 20, 20 * MS);
        clock.advance(Duration.ofMillis(39_999));
        assertThat(slowStart.share(1, now())).isEqualTo(SlowStart.MIN_SHARE);
        clock.advance(Duration.ofMillis(1));
        assertThat(slowStart.share(1, now())).isEqualTo(1.0);
    }

    @Test
    void latencyCountsOnlyAfterTwentyAnswersOfTheLeafAndOfItsPeers() {
        slowStart.begin(1, now());
        clock.advance(Duration.ofSeconds(5));
        answers(1, 20, 50 * MS);
        answers(0, 19, 1 * MS);
        assertThat(slowStart.share(1, now())).as("19 answers of its peers: time alone").isCloseTo(0.5, within(1e-9));
        answers(0, 1, 1 * MS);
        assertThat(slowStart.share(1, now())).as("then latency: 1/50, at least the minimum")
                .isEqualTo(SlowStart.MIN_SHARE);
    }

    @Test
    void peersAreMeasuredAfreshForEachSlowStartAndBeginningAgainRestartsTheRamp() {
        slowStart.begin(1, now());
        answers(0, 20, 1 * MS);
        clock.advance(Duration.ofSeconds(10));
        assertThat(slowStart.share(1, now())).isEqualTo(1.0); // no answers of its own: over at the window

        answers(0, 50, 100 * MS); // not recorded: nobody is in slow start
        slowStart.begin(1, now());
        answers(0, 20, 4 * MS);
        answers(1, 20, 8 * MS);
        clock.advance(Duration.ofSeconds(6));
        assertThat(slowStart.share(1, now())).as("peers 4 ms (not 1 or 100), own 8 ms").isCloseTo(0.5, within(1e-9));
        slowStart.begin(1, now());
        assertThat(slowStart.share(1, now())).as("came back again: from the start").isEqualTo(SlowStart.MIN_SHARE);
        assertThat(slowStart.count()).isEqualTo(1);
    }

    @Test
    void offWithAZeroWindow() {
        SlowStart off = new SlowStart(2, Duration.ZERO);
        off.begin(0, now());
        assertThat(off.enabled()).isFalse();
        assertThat(off.share(0, now())).isEqualTo(1.0);
        assertThatThrownBy(() -> new SlowStart(2, Duration.ofSeconds(-1))).hasMessageContaining("expected: >= 0");
    }

    private void answers(int leaf, int count, long latencyNanos) {
        for (int i = 0; i < count; i++) {
            slowStart.record(leaf, latencyNanos);
        }
    }

    private long now() {
        return clock.nanoTime();
    }
}
