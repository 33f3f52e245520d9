package io.hedgerow.client;

import java.time.Duration;

/**
 * When a refused request is sent again: only a {@code 503} that carries {@code Retry-After} (the
 * root says "overloaded, come back in n seconds", or a write's partition is busy), after the wait
 * it names, at most {@code maxAttempts} sends in all, and never when the wait named is longer than
 * {@code maxWaitNanos} (the caller would rather know now). Pure: the answer's status and header in,
 * a decision out.
 *
 * @param maxAttempts  sends in all, the first included (1: never retry)
 * @param maxWaitNanos the longest {@code Retry-After} this client waits out
 */
public record RetryPolicy(int maxAttempts, long maxWaitNanos) {
    /** Used when {@code Retry-After} is present but is not a number of seconds (an HTTP date, say). */
    static final long UNREADABLE_WAIT_NANOS = 1_000_000_000L;

    public RetryPolicy {
        if (maxAttempts < 1 || maxAttempts > 100) {
            throw new IllegalArgumentException("maxAttempts: " + maxAttempts + " (expected: 1..100)");
        }
        if (maxWaitNanos < 0) {
            throw new IllegalArgumentException("maxWaitNanos: " + maxWaitNanos + " (expected: >= 0)");
        }
    }

    /** Three sends, waiting at most 10 s between two. */
    public static RetryPolicy defaults() {
        return new RetryPolicy(3, Duration.ofSeconds(10).toNanos());
    }

    /** One send: every refusal goes straight to the caller. */
    public static RetryPolicy never() {
        return new RetryPolicy(1, 0);
    }

    public static RetryPolicy of(int maxAttempts, Duration maxWait) {
        return new RetryPolicy(maxAttempts, maxWait.toNanos());
    }

    /**
     * The wait before sending again, or -1 to give up.
     *
     * @param attempt    sends so far (1 after the first)
     * @param status     the answer's HTTP status
     * @param retryAfter its {@code Retry-After} header, or null
     */
    public long retryDelayNanos(int attempt, int status, String retryAfter) {
        if (status != 503 || retryAfter == null || attempt >= maxAttempts) {
            return -1;
        }
        long waitNanos = seconds(retryAfter.trim());
        return waitNanos > maxWaitNanos ? -1 : waitNanos;
    }

    private static long seconds(String header) {
        try {
            long seconds = Long.parseLong(header);
            return seconds < 0 ? UNREADABLE_WAIT_NANOS : Math.multiplyExact(seconds, 1_000_000_000L);
        } catch (NumberFormatException | ArithmeticException e) {
            return UNREADABLE_WAIT_NANOS;
        }
    }
}
