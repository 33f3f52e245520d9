package io.hedgerow.root.http;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * When a stopping root may close its idle keep-alive connections: once no byte of a request has
 * arrived on any connection for the quiet period, and at the drain deadline whatever they do.
 *
 * <p>Why wait: HTTP/1.1 cannot tell a client that an idle connection is about to close. A client
 * that is still sending may be writing a request on it at the moment it closes, and then that
 * request fails with the connection reset under it. While clients send, every answer of the
 * stopping root says {@code Connection: close}, so each connection a client uses is closed after
 * that request's answer; once nothing has arrived for the quiet period the clients have gone
 * elsewhere, and closing what is left idle races with nobody. Armeria's graceful shutdown has the
 * same rule (it stops once no request has come for its quiet period, or at its timeout).
 *
 * <p><b>Assumptions and guarantees.</b> {@link #read} is called from any event loop at once (an
 * atomic maximum); the other methods from the stopping thread. Times are on one ticker.
 */
final class QuietPeriod {
    private final long quietNanos;
    private final long deadlineNanos;
    private final AtomicLong lastReadNanos;

    /**
     * @param startNanos when the stop began: the quiet period counts from here at the earliest
     * @param quiet      how long no request byte may arrive before idle connections are closed
     * @param timeout    from {@code startNanos}, when every connection is closed whatever it does
     */
    QuietPeriod(long startNanos, Duration quiet, Duration timeout) {
        if (quiet.isNegative() || timeout.isNegative()) {
            throw new IllegalArgumentException("quiet: " + quiet + ", timeout: " + timeout + " (expected: >= 0)");
        }
        this.quietNanos = quiet.toNanos();
        this.deadlineNanos = startNanos + timeout.toNanos();
        this.lastReadNanos = new AtomicLong(startNanos);
    }

    /** Bytes of a request arrived at {@code nowNanos}. */
    void read(long nowNanos) {
        lastReadNanos.accumulateAndGet(nowNanos, QuietPeriod::later);
    }

    /** Whether idle connections may be closed now: nothing has arrived for the quiet period. */
    boolean quiet(long nowNanos) {
        return nowNanos - lastReadNanos.get() >= quietNanos;
    }

    /** Whether the drain is out of time: every connection is closed now. */
    boolean pastDeadline(long nowNanos) {
        return nowNanos - deadlineNanos >= 0;
    }

    /** The later of two ticker times (they may wrap, so compared by difference). */
    private static long later(long a, long b) {
        return a - b >= 0 ? a : b;
    }
}
