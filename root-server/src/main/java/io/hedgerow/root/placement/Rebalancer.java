package io.hedgerow.root.placement;

/**
 * Which replica to move from a hot leaf to a cool one: the rebalancer's rule. Pure: the caller
 * passes the load, the serving copies and the time.
 *
 * <p><b>The rule.</b> A leaf's load is the sum, over the partitions it serves, of the partition's
 * load divided by its serving copies (the replica choice spreads a partition's searches over its
 * copies). When the most loaded live leaf carries more than {@code rebalanceFactor} times the mean
 * of the live leaves, one copy moves from it to the least loaded live leaf: the partition (served
 * by the hot leaf, not by the cool one) whose share comes closest to half the gap between the two
 * without exceeding it, so a move never makes the cool leaf the hot one. At most one move per
 * {@code rebalanceCooldown}; the placement starts none while any copy is still opening. The move
 * itself is the placement's: the target opens and acknowledges, traffic then includes it, and the
 * source copy retires.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: the placement's thread owns it.
 */
final class Rebalancer {
    /** A move: {@code partition}'s copy on {@code fromLeaf} goes to {@code toLeaf}. */
    record Choice(int partition, int fromLeaf, int toLeaf, String why) {
    }

    private final PlacementSettings settings;
    private long lastMoveNanos;
    private boolean moved;

    Rebalancer(PlacementSettings settings) {
        this.settings = settings;
    }

    /**
     * @param load     each partition's load over the window
     * @param serving  each partition's serving copies on live leaves
     * @param alive    which leaves are live
     * @param movable  which copies may move: not a partition's stored primary, whose copy moved away
     *                 and placed back before a write hands the primary over stalls the partition's writes
     * @return the move to make now, or null
     */
    Choice choose(double[] load, int[][] serving, boolean[] alive, long nowNanos, Placement.InSync movable) {
        if (moved && nowNanos - lastMoveNanos < settings.rebalanceCooldown().toNanos()) {
            return null;
        }
        double[] leafLoad = leafLoads(load, serving, alive.length);
        int hot = -1;
        int cool = -1;
        double total = 0;
        int live = 0;
        for (int leaf = 0; leaf < alive.length; leaf++) {
            if (!alive[leaf]) {
                continue;
            }
            live++;
            total += leafLoad[leaf];
            if (hot < 0 || leafLoad[leaf] > leafLoad[hot]) {
                hot = leaf;
            }
            if (cool < 0 || leafLoad[leaf] < leafLoad[cool]) {
                cool = leaf;
            }
        }
        if (live < 2 || !(total > 0)) {
            return null;
        }
        double mean = total / live;
        if (leafLoad[hot] <= settings.rebalanceFactor() * mean) {
            return null;
        }
        double halfGap = (leafLoad[hot] - leafLoad[cool]) / 2;
        int best = -1;
        double bestShare = 0;
        for (int p = 0; p < serving.length; p++) {
            if (!contains(serving[p], hot) || contains(serving[p], cool) || !movable.test(p, hot)) {
                continue;
            }
            double share = load[p] / serving[p].length;
            if (share > bestShare && share <= halfGap) {
                best = p;
                bestShare = share;
            }
        }
        if (best < 0) {
            return null;
        }
        moved = true;
        lastMoveNanos = nowNanos;
        String why = String.format("leaf %d at %.1fx the mean leaf load, leaf %d at %.1fx: partition %d's share moves",
                hot, leafLoad[hot] / mean, cool, leafLoad[cool] / mean, best);
        return new Choice(best, hot, cool, why);
    }

    static double[] leafLoads(double[] load, int[][] serving, int leaves) {
        double[] out = new double[leaves];
        for (int p = 0; p < serving.length; p++) {
            for (int leaf : serving[p]) {
                out[leaf] += load[p] / serving[p].length;
            }
        }
        return out;
    }

    private static boolean contains(int[] values, int value) {
        for (int v : values) {
            if (v == value) {
                return true;
            }
        }
        return false;
    }
}
