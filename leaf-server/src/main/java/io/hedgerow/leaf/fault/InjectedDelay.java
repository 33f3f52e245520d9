package io.hedgerow.leaf.fault;

import io.hedgerow.common.time.Durations;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * A delay to inject into a leaf's sub-requests, for tests and demos: each search or fetch is held
 * with {@code probability} for {@code delayNanos} (or a draw from {@code distribution}), for
 * {@code durationNanos} from when the leaf takes the injection. Bounded by construction (a delay of
 * at most {@link #MAX_DELAY}, in effect for at most {@link #MAX_DURATION}, or {@link #UNTIL_EXIT}
 * when the leaf's own command line asked for it), so no message can leave a leaf slow for good.
 *
 * @param delayNanos    how long a delayed sub-request is held, or the mean of the exponential
 *                      distribution; 0 clears
 * @param probability   the chance, 0..1, that one sub-request is delayed
 * @param durationNanos how long the delay stays in effect; 0 clears
 * @param seed          seed of the coin flips and draws; 0 lets the leaf choose one
 * @param distribution  how long each delayed sub-request is held
 */
public record InjectedDelay(long delayNanos, double probability, long durationNanos, long seed, Distribution distribution) {
    public static final Duration MAX_DELAY = Duration.ofMinutes(1);
    public static final Duration MAX_DURATION = Duration.ofHours(1);
    /**
     * A duration that never lapses: only for a fault the leaf's command line puts in effect, which
     * ends with the process. The wire and the admin API are bounded by {@link #MAX_DURATION}.
     */
    public static final long UNTIL_EXIT = Long.MAX_VALUE;
    /** No delay: injecting it clears the one in effect. */
    public static final InjectedDelay NONE = new InjectedDelay(0, 0, 0, 0);

    /** How long a delayed sub-request is held. */
    public enum Distribution {
        /** Exactly {@code delayNanos}. */
        FIXED,
        /** Exponential with mean {@code delayNanos}, capped at {@link #MAX_DELAY}: a long tail of slow requests. */
        EXPONENTIAL;

        /** {@code fixed} or {@code exponential}, as the CLI and the HTTP API spell it. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public InjectedDelay {
        if (delayNanos < 0 || delayNanos > MAX_DELAY.toNanos()) {
            throw new IllegalArgumentException("delayNanos: " + delayNanos + " (expected: 0.." + MAX_DELAY.toNanos()
                    + ", at most " + Durations.format(MAX_DELAY) + ")");
        }
        if (!(probability >= 0 && probability <= 1)) {
            throw new IllegalArgumentException("probability: " + probability + " (expected: 0..1)");
        }
        checkDuration(durationNanos);
        Objects.requireNonNull(distribution, "distribution");
    }

    /** A fixed delay. */
    public InjectedDelay(long delayNanos, double probability, long durationNanos, long seed) {
        this(delayNanos, probability, durationNanos, seed, Distribution.FIXED);
    }

    /** A fixed delay whose seed the leaf chooses. */
    public static InjectedDelay of(Duration delay, double probability, Duration duration) {
        return new InjectedDelay(delay.toNanos(), probability, duration.toNanos(), 0);
    }

    public InjectedDelay withSeed(long newSeed) {
        return new InjectedDelay(delayNanos, probability, durationNanos, newSeed, distribution);
    }

    public InjectedDelay withDistribution(Distribution newDistribution) {
        return new InjectedDelay(delayNanos, probability, durationNanos, seed, newDistribution);
    }

    /** True when injecting this removes any delay instead of setting one. */
    public boolean clears() {
        return delayNanos == 0 || durationNanos == 0;
    }

    /**
     * E.g. {@code 50ms with probability 0.05 for 30s (seed 42)}, or {@code an exponential draw (mean
     * 50ms, at most 1m) with probability 0.05 until the leaf exits (seed 42)}.
     */
    public String describe() {
        if (clears()) {
            return "no delay";
        }
        String held = Durations.format(Duration.ofNanos(delayNanos));
        if (distribution == Distribution.EXPONENTIAL) {
            held = "an exponential draw (mean " + held + ", at most " + Durations.format(MAX_DELAY) + ")";
        }
        return held + " with probability " + probability + " " + describeDuration(durationNanos)
                + (seed == 0 ? "" : " (seed " + seed + ")");
    }

    static void checkDuration(long durationNanos) {
        if ((durationNanos < 0 || durationNanos > MAX_DURATION.toNanos()) && durationNanos != UNTIL_EXIT) {
            throw new IllegalArgumentException("durationNanos: " + durationNanos + " (expected: 0.."
                    + MAX_DURATION.toNanos() + ", at most " + Durations.format(MAX_DURATION) + ")");
        }
    }

    static String describeDuration(long durationNanos) {
        return durationNanos == UNTIL_EXIT ? "until the leaf exits" : "for " + Durations.format(Duration.ofNanos(durationNanos));
    }
}
