package io.hedgerow.leaf.fault;

import io.hedgerow.common.time.Durations;
import java.time.Duration;

/**
 * A stall to inject into a leaf, for tests and demos: for {@code stallNanos} out of every
 * {@code periodNanos}, counted from when the leaf takes the injection (so the first stall starts at
 * once), no worker starts or resumes a sub-request, as a stop-the-world GC pause would hold every
 * thread. In effect for {@code durationNanos}. Bounded like {@link InjectedDelay}.
 *
 * @param stallNanos    how long each stall lasts; 0 clears
 * @param periodNanos   time from the start of one stall to the start of the next (more than {@code stallNanos})
 * @param durationNanos how long the stalls go on; 0 clears
 */
public record InjectedStall(long stallNanos, long periodNanos, long durationNanos) {
    public static final Duration MAX_STALL = InjectedDelay.MAX_DELAY;
    public static final Duration MAX_PERIOD = Duration.ofHours(1);
    /** No stall: injecting it clears the one in effect. */
    public static final InjectedStall NONE = new InjectedStall(0, 0, 0);

    public InjectedStall {
        if (stallNanos < 0 || stallNanos > MAX_STALL.toNanos()) {
            throw new IllegalArgumentException("stallNanos: " + stallNanos + " (expected: 0.." + MAX_STALL.toNanos()
                    + ", at most " + Durations.format(MAX_STALL) + ")");
        }
        if (periodNanos < 0 || periodNanos > MAX_PERIOD.toNanos()) {
            throw new IllegalArgumentException("periodNanos: " + periodNanos + " (expected: 0.." + MAX_PERIOD.toNanos()
                    + ", at most " + Durations.format(MAX_PERIOD) + ")");
        }
        InjectedDelay.checkDuration(durationNanos);
        if (stallNanos > 0 && durationNanos > 0 && periodNanos <= stallNanos) {
            throw new IllegalArgumentException("periodNanos: " + periodNanos + " (expected: > stallNanos " + stallNanos
                    + ", or the leaf would never run)");
        }
    }

    /** A stall of {@code stall} every {@code period} for {@code duration}. */
    public static InjectedStall of(Duration stall, Duration period, Duration duration) {
        return new InjectedStall(stall.toNanos(), period.toNanos(), duration.toNanos());
    }

    /** True when injecting this removes any stall instead of setting one. */
    public boolean clears() {
        return stallNanos == 0 || durationNanos == 0;
    }

    /** E.g. {@code 150ms every 1s for 1m}. */
    public String describe() {
        if (clears()) {
            return "no stall";
        }
        return Durations.format(Duration.ofNanos(stallNanos)) + " every " + Durations.format(Duration.ofNanos(periodNanos))
                + " " + InjectedDelay.describeDuration(durationNanos);
    }
}
