package io.hedgerow.root.hedge;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The network part of the round trip from the root to each leaf and back: what a sub-request's
 * round trip took minus the time the leaf says it spent on it (queueing and work). Tied requests
 * space their two copies by about twice this, so the first copy's leaf has a chance to take it and
 * cancel the second before the second is queued ({@link #tiedDelayNanos}).
 *
 * <p>The estimate per leaf is an exponentially weighted moving average with weight 1/8 for each new
 * sample, TCP's smoothed round-trip time (RFC 6298): it follows a lasting change within a few dozen
 * samples, and one outlier (a pause on the root's event loop, say) moves it by an eighth and fades
 * as fast; the tied delay's cap bounds what an outlier can do meanwhile.
 *
 * <p><b>Assumptions and guarantees.</b> All methods may be called from any number of threads; a
 * record is a short compare-and-set loop on the leaf's slot and a read is one volatile read. Two
 * concurrent records for one leaf are both applied, in either order.
 */
public final class RoundTrip {
    /** What {@link #networkNanos} returns for a leaf with no sample yet. */
    public static final long UNKNOWN = -1;

    private static final int WEIGHT_SHIFT = 3; // each sample weighs 1/8

    private final AtomicLongArray networkNanos;

    /** An estimate for each of leaves {@code 0 .. leaves - 1}, all unknown at first. */
    public RoundTrip(int leaves) {
        if (leaves < 1) {
            throw new IllegalArgumentException("leaves: " + leaves + " (expected: >= 1)");
        }
        this.networkNanos = new AtomicLongArray(leaves);
        for (int i = 0; i < leaves; i++) {
            networkNanos.set(i, UNKNOWN);
        }
    }

    /** Another leaf takes over {@code leaf}'s slot: its estimate is unknown again. */
    public void forget(int leaf) {
        networkNanos.set(leaf, UNKNOWN);
    }

    /** Number of leaves tracked. */
    public int leaves() {
        return networkNanos.length();
    }

    /**
     * Records one answered sub-request.
     *
     * @param leaf           the leaf that answered
     * @param roundTripNanos from the root's send to the root's receipt of the answer
     * @param leafNanos      the time the leaf reports having held the sub-request (receipt to answer)
     */
    public void record(int leaf, long roundTripNanos, long leafNanos) {
        checkLeaf(leaf);
        long sample = Math.max(0, roundTripNanos - leafNanos);
        while (true) {
            long old = networkNanos.get(leaf);
            long updated = old == UNKNOWN ? sample : old + ((sample - old) >> WEIGHT_SHIFT);
            if (networkNanos.compareAndSet(leaf, old, updated)) {
                return;
            }
        }
    }

    /** The estimated network time of a round trip to {@code leaf}, in nanoseconds; {@link #UNKNOWN} before any sample. */
    public long networkNanos(int leaf) {
        checkLeaf(leaf);
        return networkNanos.get(leaf);
    }

    /**
     * How long after a tied request's first copy to send the second: the settings' {@code
     * tiedDelay} if set; otherwise twice the longer of the two leaves' network times, at most
     * {@code tiedMaxDelay}, and {@code tiedMaxDelay} itself while either leaf's time is unknown
     * (negative). Twice the network time lets the first copy reach its leaf and that leaf's cancel
     * reach the second's leaf before the second arrives, when the first copy is taken at once;
     * the cap keeps the two copies queued at nearly the same time, which is the point of tying
     * them (the tied reads of "The Tail at Scale" sent the second copy 1 ms after the first).
     */
    public static long tiedDelayNanos(HedgeSettings settings, long networkA, long networkB) {
        if (settings.tiedDelay() != null) {
            return settings.tiedDelay().toNanos();
        }
        long cap = settings.tiedMaxDelay().toNanos();
        if (networkA < 0 || networkB < 0) {
            return cap;
        }
        long longer = Math.max(networkA, networkB);
        return longer > cap / 2 ? cap : 2 * longer;
    }

    private void checkLeaf(int leaf) {
        if (leaf < 0 || leaf >= networkNanos.length()) {
            throw new IndexOutOfBoundsException("leaf: " + leaf + " (expected: >= 0 and < " + networkNanos.length() + ")");
        }
    }
}
