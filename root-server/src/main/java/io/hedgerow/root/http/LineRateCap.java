package io.hedgerow.root.http;

import io.hedgerow.common.time.Ticker;
import java.util.concurrent.atomic.AtomicLong;

/**
 * At most so many log lines a second, counting the ones left out: at overload every search can be
 * slow, and a multi-kilobyte line for each of them (5,892 in one 30 s overload phase) costs the
 * CPU and disk the overload is short of while telling nothing the first few did not. The next line
 * written says how many were left out before it ({@link #leftOut}).
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe without locks (the event loops share it); at a
 * second's boundary two threads may both start the new second, letting a line or two more through.
 */
final class LineRateCap {
    private static final long SECOND = 1_000_000_000L;

    private final Ticker ticker;
    private final int perSecond;
    private final AtomicLong second = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong inSecond = new AtomicLong();
    private final AtomicLong leftOut = new AtomicLong();

    LineRateCap(Ticker ticker, int perSecond) {
        if (perSecond < 1) {
            throw new IllegalArgumentException("perSecond: " + perSecond + " (expected: >= 1)");
        }
        this.ticker = ticker;
        this.perSecond = perSecond;
    }

    /** Whether a line may be written now; one that may not is counted as left out. */
    boolean tryWrite() {
        long now = Math.floorDiv(ticker.nanoTime(), SECOND);
        long current = second.get();
        if (now != current && second.compareAndSet(current, now)) {
            inSecond.set(0);
        }
        if (inSecond.incrementAndGet() <= perSecond) {
            return true;
        }
        leftOut.incrementAndGet();
        return false;
    }

    /** The lines left out since the last call: a written line reports them. */
    long leftOut() {
        return leftOut.getAndSet(0);
    }
}
