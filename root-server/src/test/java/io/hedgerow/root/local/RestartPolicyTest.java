package io.hedgerow.root.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.policy.Backoff;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Scripted deaths on a made-up clock: the exact waits, when a crash loop starts and when it is over. */
class RestartPolicyTest {
    private static final long SECOND = Duration.ofSeconds(1).toNanos();
    /** 1 s doubling to 30 s; 3 deaths in 60 s are a crash loop, restarted after 45 s at the soonest. */
    private static final RestartPolicy.Settings SETTINGS = new RestartPolicy.Settings(
            Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(30)), 3, Duration.ofSeconds(60),
            Duration.ofSeconds(45));

    @Test
    void restartsSoonAfterAFirstDeathAndLaterAfterEachDeathThatFollowsWithinTheWindow() {
        RestartPolicy policy = new RestartPolicy(SETTINGS);

        // t=0: the first death; the draw 0.0 takes the low end, c/2.
        assertThat(policy.died(0, 0.0)).isEqualTo(new RestartPolicy.Decision(SECOND / 2, 1, false));
        // t=5 s: the second death within the window waits in [1 s, 2 s].
        assertThat(policy.died(5 * SECOND, 0.5)).isEqualTo(new RestartPolicy.Decision(SECOND + SECOND / 2, 2, false));
        assertThat(policy.crashLooping(6 * SECOND)).isFalse();
    }

    @Test
    void aLeafThatKeepsDyingIsACrashLoopAndWaitsAtLeastTheCrashLoopDelay() {
        RestartPolicy policy = new RestartPolicy(SETTINGS);
        policy.died(0, 0.0);
        policy.died(2 * SECOND, 0.0);

        // t=4 s: the third death in 60 s. The backoff alone would say [2 s, 4 s]; the crash loop says 45 s.
        RestartPolicy.Decision third = policy.died(4 * SECOND, 0.0);
        assertThat(third).isEqualTo(new RestartPolicy.Decision(45 * SECOND, 3, true));
        assertThat(policy.crashLooping(50 * SECOND)).isTrue();
        // t=60 s: the first death has left the window; two remain, no crash loop any more.
        assertThat(policy.crashLooping(60 * SECOND)).isFalse();
    }

    @Test
    void deathsOlderThanTheWindowAreForgottenSoARecoveredLeafRestartsQuicklyAgain() {
        RestartPolicy policy = new RestartPolicy(SETTINGS);
        policy.died(0, 0.0);
        policy.died(SECOND, 0.0);
        policy.died(2 * SECOND, 0.0);

        // t=10 min: a death after a long healthy run counts as a first death.
        assertThat(policy.died(600 * SECOND, 0.0)).isEqualTo(new RestartPolicy.Decision(SECOND / 2, 1, false));
    }

    @Test
    void theBackoffIsCappedAtItsMaximum() {
        RestartPolicy.Settings generous = new RestartPolicy.Settings(
                Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(4)), 100, Duration.ofHours(1), Duration.ZERO);
        RestartPolicy policy = new RestartPolicy(generous);
        long delay = 0;
        for (int death = 0; death < 10; death++) {
            delay = policy.died(death * SECOND, 0.999_999).delayNanos();
        }
        assertThat(delay).isLessThanOrEqualTo(4 * SECOND).isGreaterThan(3 * SECOND);
    }

    @Test
    void refusesSettingsThatCannotDescribeACrashLoop() {
        Backoff backoff = Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(2));
        assertThatThrownBy(() -> new RestartPolicy.Settings(backoff, 1, Duration.ofSeconds(60), Duration.ZERO))
                .hasMessage("crashLoopDeaths: 1 (expected: >= 2)");
        assertThatThrownBy(() -> new RestartPolicy.Settings(backoff, 3, Duration.ZERO, Duration.ZERO))
                .hasMessage("window: PT0S (expected: > 0)");
    }
}
