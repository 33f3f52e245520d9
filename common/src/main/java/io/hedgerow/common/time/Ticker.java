package io.hedgerow.common.time;

/**
 * A source of monotonic nanosecond timestamps. Every policy and every component that measures
 * time takes one, so tests and simulations drive time themselves instead of sleeping.
 */
@FunctionalInterface
public interface Ticker {

    /** Nanoseconds since an arbitrary origin; only differences between two readings mean anything. */
    long nanoTime();

    /** The real clock. */
    static Ticker system() {
        return SystemTicker.INSTANCE;
    }
}
