package io.hedgerow.root.placement;

import java.util.ArrayDeque;

/**
 * Each partition's load over a sliding window, from cumulative counters read at each tick: the
 * rate between the oldest reading inside the window and the newest. Pure: the caller passes the
 * readings and the time.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: the placement's thread owns it.
 */
public final class LoadWindow {
    private record Reading(long nanos, long[] totals) {
    }

    private final long windowNanos;
    private final ArrayDeque<Reading> readings = new ArrayDeque<>();

    public LoadWindow(long windowNanos) {
        if (windowNanos <= 0) {
            throw new IllegalArgumentException("windowNanos: " + windowNanos + " (expected: > 0)");
        }
        this.windowNanos = windowNanos;
    }

    /**
     * Adds a reading of the cumulative totals and returns each partition's rate per second over the
     * window, or null until the window holds two readings.
     */
    public double[] add(long[] totals, long nowNanos) {
        readings.addLast(new Reading(nowNanos, totals.clone()));
        while (readings.size() > 2 && nowNanos - readings.peekFirst().nanos() > windowNanos) {
            readings.removeFirst();
        }
        Reading first = readings.peekFirst();
        if (readings.size() < 2 || nowNanos == first.nanos()) {
            return null;
        }
        double seconds = (nowNanos - first.nanos()) / 1e9;
        double[] rates = new double[totals.length];
        for (int p = 0; p < totals.length; p++) {
            rates[p] = (totals[p] - first.totals()[p]) / seconds;
        }
        return rates;
    }
}
