package io.hedgerow.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class RetryPolicyTest {
    private final RetryPolicy policy = RetryPolicy.of(3, Duration.ofSeconds(10));

    @Test
    void waitsWhatRetryAfterSaysOnlyForA503() {
        assertThat(policy.retryDelayNanos(1, 503, "2")).isEqualTo(2_000_000_000L);
        assertThat(policy.retryDelayNanos(1, 503, " 0 ")).isZero();
        assertThat(policy.retryDelayNanos(1, 503, null)).isEqualTo(-1);
        assertThat(policy.retryDelayNanos(1, 429, "1")).isEqualTo(-1);
        assertThat(policy.retryDelayNanos(1, 200, "1")).isEqualTo(-1);
    }

    @Test
    void stopsAtItsAttemptsAndAtAWaitLongerThanItsMaximum() {
        assertThat(policy.retryDelayNanos(2, 503, "1")).isEqualTo(1_000_000_000L);
        assertThat(policy.retryDelayNanos(3, 503, "1")).isEqualTo(-1);
        assertThat(policy.retryDelayNanos(1, 503, "11")).isEqualTo(-1);
        assertThat(RetryPolicy.never().retryDelayNanos(1, 503, "0")).isEqualTo(-1);
    }

    @Test
    void anHttpDateOrGarbageWaitsOneSecond() {
        assertThat(policy.retryDelayNanos(1, 503, "Wed, 21 Oct 2015 07:28:00 GMT")).isEqualTo(1_000_000_000L);
        assertThat(policy.retryDelayNanos(1, 503, "-5")).isEqualTo(1_000_000_000L);
    }

    @Test
    void refusesSettingsOutOfRangeNamingThem() {
        assertThatThrownBy(() -> new RetryPolicy(0, 1)).hasMessage("maxAttempts: 0 (expected: 1..100)");
        assertThatThrownBy(() -> new RetryPolicy(2, -1)).hasMessage("maxWaitNanos: -1 (expected: >= 0)");
    }
}
