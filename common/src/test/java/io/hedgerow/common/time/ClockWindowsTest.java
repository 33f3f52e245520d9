package io.hedgerow.common.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ClockWindowsTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void processesStartedAtDifferentTimesMeetAtTheSameWholePeriods() {
        long a = 17 * SECOND + 123_456_789L;
        long b = 17 * SECOND + 901_000_000L;

        assertThat(a + ClockWindows.delayToNextNanos(a, SECOND, 0)).isEqualTo(18 * SECOND);
        assertThat(b + ClockWindows.delayToNextNanos(b, SECOND, 0)).isEqualTo(18 * SECOND);
    }

    @Test
    void onABoundaryTheNextIsAWholePeriodAwayAndAPhaseShiftsIt() {
        assertThat(ClockWindows.delayToNextNanos(5 * SECOND, SECOND, 0)).isEqualTo(SECOND);
        assertThat(ClockWindows.delayToNextNanos(5 * SECOND, SECOND, 250_000_000L)).isEqualTo(250_000_000L);
        assertThat(ClockWindows.delayToNextNanos(5 * SECOND + 300_000_000L, SECOND, 250_000_000L))
                .isEqualTo(950_000_000L);
    }

    @Test
    void refusesAPeriodThatIsNotPositive() {
        assertThatThrownBy(() -> ClockWindows.delayToNextNanos(0, 0, 0)).hasMessageContaining("periodNanos: 0");
    }
}
