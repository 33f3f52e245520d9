package io.hedgerow.common.time;

/**
 * When periodic background work runs: at instants aligned on the wall clock, so that every process
 * of a cluster (whose clocks NTP keeps within milliseconds) does it at the same moments, or at a
 * phase of its own. "The Tail at Scale" calls the first synchronized disruption: a search that fans
 * out to every leaf meets background work on all of them at once or on none, instead of on some leaf
 * nearly every time. Pure.
 */
public final class ClockWindows {
    private ClockWindows() {
    }

    /**
     * How long from {@code epochNanos} (wall-clock time) until the next instant that is a whole
     * multiple of {@code periodNanos} since the epoch, plus {@code phaseNanos}: in (0, period].
     */
    public static long delayToNextNanos(long epochNanos, long periodNanos, long phaseNanos) {
        if (periodNanos <= 0) {
            throw new IllegalArgumentException("periodNanos: " + periodNanos + " (expected: > 0)");
        }
        return periodNanos - Math.floorMod(epochNanos - phaseNanos, periodNanos);
    }
}
