package io.hedgerow.leaf.fault;

import io.hedgerow.common.time.Durations;
import java.time.Duration;

/**
 * A delay to inject into a leaf's sub-requests, for tests and demos: each search or fetch is held
 * for {@code delayNanos} with {@code probability}, for {@code durationNanos} from when the leaf
 * takes the injection. Bounded by construction (a delay of at most {@link #MAX_DELAY}, in effect
 * for at most {@link #MAX_DURATION}), so nothing can leave a leaf slow for good.
 *
 * @param delayNanos    how long a delayed sub-request is held; 0 clears
 * @param probability   the chance, 0..1, that one sub-request is delayed
 * @param durationNanos how long the delay stays in effect; 0 clears
 * @param seed          seed of the coin flips; 0 lets the leaf choose one
 */
public record InjectedDelay(long delayNanos, double probability, long durationNanos, long seed) {
    public static final Duration MAX_DELAY = Duration.ofMinutes(1);
    public static final Duration MAX_DURATION = Duration.ofHours(1);
    /** No delay: injecting it clears the one in effect. */
    public static final InjectedDelay NONE = new InjectedDelay(0, 0, 0, 0);

    public InjectedDelay {
        if (delayNanos < 0 || delayNanos > MAX_DELAY.toNanos()) {
            throw new IllegalArgumentException("delayNanos: " + delayNanos + " (expected: 0.." + MAX_DELAY.toNanos()
                    + ", at most " + Durations.format(MAX_DELAY) + ")");
        }
        if (!(probability >= 0 && probability <= 1)) {
            throw new IllegalArgumentException("probability: " + probability + " (expected: 0..1)");
        }
        if (durationNanos < 0 || durationNanos > MAX_DURATION.toNanos()) {
            throw new IllegalArgumentException("durationNanos: " + durationNanos + " (expected: 0.."
                    + MAX_DURATION.toNanos() + ", at most " + Durations.format(MAX_DURATION) + ")");
        }
    }

    /** A delay whose seed the leaf chooses. */
    public static InjectedDelay of(Duration delay, double probability, Duration duration) {
        return new InjectedDelay(delay.toNanos(), probability, duration.toNanos(), 0);
    }

    public InjectedDelay withSeed(long newSeed) {
        return new InjectedDelay(delayNanos, probability, durationNanos, newSeed);
    }

    /** True when injecting this removes any delay instead of setting one. */
    public boolean clears() {
        return delayNanos == 0 || durationNanos == 0;
    }

    /** E.g. {@code 50ms with probability 0.05 for 30s (seed 42)}. */
    public String describe() {
        if (clears()) {
            return "no delay";
        }
        return Durations.format(Duration.ofNanos(delayNanos)) + " with probability " + probability + " for "
                + Durations.format(Duration.ofNanos(durationNanos)) + (seed == 0 ? "" : " (seed " + seed + ")");
    }
}
