package io.hedgerow.common.policy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The warm-up's stopping rule, scripted window by window. */
class WarmupConvergenceTest {
    private static final long SECOND = 1_000_000_000L;

    /** Plays {@code rates} (searches per 1 s window) and returns the window after which it converged, or -1. */
    private static int convergedAfter(int... rates) {
        WarmupConvergence convergence = new WarmupConvergence(0, SECOND, 3, 0.10);
        long now = 0;
        for (int window = 0; window < rates.length; window++) {
            for (int i = 0; i < rates[window]; i++) {
                convergence.searchDone(now + SECOND * i / rates[window] / 2);
            }
            now += SECOND;
            if (convergence.converged(now)) {
                return window + 1;
            }
        }
        return -1;
    }

    @Test
    void convergesOnceTheRateStopsRisingForTheStableWindows() {
        // rising while compiling, then flat (within 10%) from the fifth window
        assertThat(convergedAfter(20, 60, 150, 300, 400, 420, 390, 410, 405)).isEqualTo(8);
    }

    @Test
    void aLateJumpRestartsTheWait() {
        // flat, then a leaf's compiler finishes and the rate jumps: wait three more windows
        assertThat(convergedAfter(100, 105, 102, 200, 205, 198, 201)).isEqualTo(7);
        assertThat(convergedAfter(100, 105, 102, 200, 205)).isEqualTo(-1);
    }

    @Test
    void anIdleStretchClosesEmptyWindows() {
        WarmupConvergence convergence = new WarmupConvergence(0, SECOND, 3, 0.10);
        convergence.searchDone(SECOND / 2);
        assertThat(convergence.converged(SECOND * 5)).as("windows 2-5 beat nothing").isTrue();
        assertThat(convergence.windows()).isEqualTo(5);
    }
}
