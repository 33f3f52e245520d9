package io.hedgerow.common.policy;

/**
 * When a warm-up may stop: its searches run in a closed loop (the root's through its HTTP port, a
 * leaf's on its partitions), so their rate per window rises while the JIT compiles the request path
 * and levels off once it is done. The warm-up has converged when no window for {@code stableWindows} windows beat the best
 * rate by more than {@code improvement}. On two cores five JVMs compile for a minute or more; a fixed
 * warm-up of 10 s left the first 30 s of load at 6-10x the warm p99.
 *
 * <p><b>Assumptions and guarantees.</b> Pure: time comes from the caller. Not thread-safe; the
 * warm-up's loops report to it under one lock.
 */
public final class WarmupConvergence {
    private final long windowNanos;
    private final int stableWindows;
    private final double improvement;
    private long windowEndNanos;
    private long inWindow;
    private int closedWindows;
    private long reference = -1;
    private int referenceWindow;

    /**
     * @param startNanos    when the warm-up began
     * @param windowNanos   the length of a window
     * @param stableWindows windows without a better rate that mean converged
     * @param improvement   how much better a window must be to count, as a fraction (0.1: 10%)
     */
    public WarmupConvergence(long startNanos, long windowNanos, int stableWindows, double improvement) {
        if (windowNanos <= 0 || stableWindows < 1 || !(improvement >= 0)) {
            throw new IllegalArgumentException("window " + windowNanos + " ns, " + stableWindows + " windows, improvement "
                    + improvement + " (expected: > 0, >= 1, >= 0)");
        }
        this.windowNanos = windowNanos;
        this.stableWindows = stableWindows;
        this.improvement = improvement;
        this.windowEndNanos = startNanos + windowNanos;
    }

    /** One warm-up search ended at {@code nowNanos}. */
    public void searchDone(long nowNanos) {
        advance(nowNanos);
        inWindow++;
    }

    /** Whether the rate has stopped rising. */
    public boolean converged(long nowNanos) {
        advance(nowNanos);
        return reference >= 0 && closedWindows - referenceWindow >= stableWindows;
    }

    /** Windows closed so far. */
    public int windows() {
        return closedWindows;
    }

    private void advance(long nowNanos) {
        while (nowNanos - windowEndNanos >= 0) {
            closedWindows++;
            if (reference < 0 || inWindow > reference * (1 + improvement)) {
                reference = inWindow;
                referenceWindow = closedWindows;
            }
            inWindow = 0;
            windowEndNanos += windowNanos;
        }
    }
}
