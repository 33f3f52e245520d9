package io.hedgerow.common.time;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A {@link Ticker} that moves only when a test tells it to. */
public final class ManualTicker implements Ticker {
    private final AtomicLong nanos = new AtomicLong();

    @Override
    public long nanoTime() {
        return nanos.get();
    }

    public ManualTicker advance(Duration duration) {
        nanos.addAndGet(duration.toNanos());
        return this;
    }

    public ManualTicker advanceMillis(long millis) {
        nanos.addAndGet(millis * 1_000_000L);
        return this;
    }
}
