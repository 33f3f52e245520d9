package io.hedgerow.root.placement;

import java.util.Arrays;

/**
 * Which leaves the placement holds alive, and since when each lost one has been lost. Not
 * thread-safe: confined to the placement's thread, like {@link Placement}.
 */
final class LeafLiveness {
    private final boolean[] alive;
    private final long[] lostSinceNanos;
    /** Slots no leaf holds (yet): not alive, but not lost either, so never gone. */
    private final boolean[] vacant;

    /** Every leaf alive. */
    LeafLiveness(int leaves) {
        this.alive = new boolean[leaves];
        this.lostSinceNanos = new long[leaves];
        this.vacant = new boolean[leaves];
        Arrays.fill(alive, true);
    }

    /** {@code leaf}'s slot holds no leaf, or one not connected since it filled the slot. */
    void vacate(int leaf) {
        if (alive[leaf] || vacant[leaf]) {
            alive[leaf] = false;
            vacant[leaf] = true;
        }
    }

    /** @return whether it was alive until now */
    boolean lost(int leaf, long nowNanos) {
        if (!alive[leaf]) {
            return false;
        }
        alive[leaf] = false;
        lostSinceNanos[leaf] = nowNanos;
        return true;
    }

    void back(int leaf) {
        alive[leaf] = true;
        vacant[leaf] = false;
    }

    boolean alive(int leaf) {
        return alive[leaf];
    }

    /** Every leaf's state (the live array: do not modify). */
    boolean[] all() {
        return alive;
    }

    long lostSinceNanos(int leaf) {
        return lostSinceNanos[leaf];
    }

    /** Whether {@code leaf} has been lost for {@code graceNanos} or longer. */
    boolean lostFor(int leaf, long graceNanos, long nowNanos) {
        return !alive[leaf] && !vacant[leaf] && nowNanos - lostSinceNanos[leaf] >= graceNanos;
    }

    int count() {
        int count = 0;
        for (boolean a : alive) {
            count += a ? 1 : 0;
        }
        return count;
    }
}
