package io.hedgerow.common.policy;

import java.time.Duration;

/**
 * Exponential backoff with jitter for reconnects: attempt n waits a random time in
 * [c/2, c] where c = min(max, initial * 2^n), so retries spread out but never hammer at once.
 * Pure: the caller passes the random draw, so tests are exact.
 */
public record Backoff(long initialNanos, long maxNanos) {

    public Backoff {
        if (initialNanos <= 0) {
            throw new IllegalArgumentException("initialNanos: " + initialNanos + " (expected: > 0)");
        }
        if (maxNanos < initialNanos) {
            throw new IllegalArgumentException(
                    "maxNanos: " + maxNanos + " (expected: >= initialNanos " + initialNanos + ")");
        }
    }

    public static Backoff exponential(Duration initial, Duration max) {
        return new Backoff(initial.toNanos(), max.toNanos());
    }

    /** Upper bound of the wait before attempt {@code attempt} (0-based). */
    public long ceilingNanos(int attempt) {
        if (attempt < 0) {
            throw new IllegalArgumentException("attempt: " + attempt + " (expected: >= 0)");
        }
        int shiftsBeforeOverflow = Long.numberOfLeadingZeros(initialNanos) - 1;
        if (attempt >= shiftsBeforeOverflow) {
            return maxNanos;
        }
        return Math.min(maxNanos, initialNanos << attempt);
    }

    /** The wait before attempt {@code attempt}, given a uniform draw in [0, 1). */
    public long delayNanos(int attempt, double uniform) {
        if (!(uniform >= 0 && uniform < 1)) {
            throw new IllegalArgumentException("uniform: " + uniform + " (expected: >= 0 and < 1)");
        }
        long ceiling = ceilingNanos(attempt);
        return ceiling / 2 + (long) (ceiling / 2 * uniform);
    }
}
