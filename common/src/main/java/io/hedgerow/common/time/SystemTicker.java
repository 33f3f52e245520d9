package io.hedgerow.common.time;

/** {@link Ticker} backed by {@link System#nanoTime()}. */
enum SystemTicker implements Ticker {
    INSTANCE;

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }
}
