package io.hedgerow.root.tail;

import io.hedgerow.common.time.Durations;
import java.time.Duration;
import java.util.Objects;

/**
 * A time limit learnt from recent latency: {@code factor} times the {@code percentile} of a
 * window of observations, clamped to {@code [min, max]}; or a fixed limit. The canary timeout and
 * the good-enough cutoff are both of this shape ({@link ScaledPercentile} computes it). Immutable.
 *
 * @param percentile the percentile (0..100] of recent latency the limit is scaled from
 * @param factor     how many times that percentile the limit is (>= 1: a limit below the
 *                   percentile it is learnt from would cut off what is normal)
 * @param min        the shortest adaptive limit
 * @param max        the longest adaptive limit, and the limit used while the window has too few
 *                   samples to trust
 * @param fixed      a limit to use instead of the adaptive one; {@code null} for adaptive
 */
public record AdaptiveLimit(double percentile, double factor, Duration min, Duration max, Duration fixed) {

    public AdaptiveLimit {
        if (!(percentile > 0 && percentile <= 100)) {
            throw new IllegalArgumentException("percentile: " + percentile + " (expected: > 0 and <= 100)");
        }
        if (!(factor >= 1 && Double.isFinite(factor))) {
            throw new IllegalArgumentException("factor: " + factor + " (expected: >= 1.0, finite)");
        }
        Objects.requireNonNull(min, "min");
        Objects.requireNonNull(max, "max");
        if (min.isNegative()) {
            throw new IllegalArgumentException("min: " + Durations.format(min) + " (expected: >= 0)");
        }
        if (max.isZero() || max.isNegative() || max.compareTo(min) < 0) {
            throw new IllegalArgumentException("max: " + Durations.format(max)
                    + " (expected: > 0 and >= min " + Durations.format(min) + ")");
        }
        if (fixed != null && (fixed.isZero() || fixed.isNegative())) {
            throw new IllegalArgumentException("fixed: " + Durations.format(fixed) + " (expected: > 0)");
        }
    }

    /** {@code factor} times the {@code percentile} of recent latency, clamped to {@code [min, max]}. */
    public static AdaptiveLimit adaptive(double percentile, double factor, Duration min, Duration max) {
        return new AdaptiveLimit(percentile, factor, min, max, null);
    }

    /** True when the limit is learnt from the window rather than fixed. */
    public boolean isAdaptive() {
        return fixed == null;
    }

    public AdaptiveLimit withPercentile(double value) {
        return new AdaptiveLimit(value, factor, min, max, fixed);
    }

    public AdaptiveLimit withFactor(double value) {
        return new AdaptiveLimit(percentile, value, min, max, fixed);
    }

    /** Sets both bounds at once, so a command line may raise the minimum above the old maximum. */
    public AdaptiveLimit withBounds(Duration newMin, Duration newMax) {
        return new AdaptiveLimit(percentile, factor, newMin, newMax, fixed);
    }

    /** A fixed limit; {@code null} returns to the adaptive one. */
    public AdaptiveLimit withFixed(Duration value) {
        return new AdaptiveLimit(percentile, factor, min, max, value);
    }

    /** {@code 3 x p99 in [20ms, 1s]}, or {@code fixed 150ms}: for help texts and start-up logs. */
    public String describe() {
        if (fixed != null) {
            return "fixed " + Durations.format(fixed);
        }
        String p = percentile == Math.rint(percentile) ? Long.toString((long) percentile) : Double.toString(percentile);
        String f = factor == Math.rint(factor) ? Long.toString((long) factor) : Double.toString(factor);
        return f + " x p" + p + " in [" + Durations.format(min) + ", " + Durations.format(max) + "]";
    }
}
