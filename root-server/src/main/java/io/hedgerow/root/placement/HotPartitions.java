package io.hedgerow.root.placement;

import java.util.Arrays;

/**
 * Which partitions are hot enough for extra replicas: selective replication's rule. Pure: the
 * caller passes each partition's load over the window and the time.
 *
 * <p><b>The rule.</b> A partition whose load is at least {@code hotFactor} times the median
 * partition's gets one extra replica; at {@code hotFactor} squared, two; never more than
 * {@code maxExtraReplicas}. It keeps them until its load falls under {@code coolFactor} times the
 * median (below the entry threshold, so a load hovering at the threshold does not flap) and it has
 * held them for {@code minHold}. While the median load is zero (no traffic) nothing changes.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: the placement's thread owns it.
 */
final class HotPartitions {
    private final PlacementSettings settings;
    private final int[] extra;
    private final long[] sinceNanos;
    private final String[] why;

    HotPartitions(int partitions, PlacementSettings settings) {
        this.settings = settings;
        this.extra = new int[partitions];
        this.sinceNanos = new long[partitions];
        this.why = new String[partitions];
    }

    /** Updates the extras from {@code load}, each partition's load over the window. */
    void update(double[] load, long nowNanos) {
        if (load.length != extra.length) {
            throw new IllegalArgumentException("load: " + load.length + " partitions (expected: " + extra.length + ")");
        }
        double median = median(load);
        if (!(median > 0)) {
            return;
        }
        for (int p = 0; p < load.length; p++) {
            double ratio = load[p] / median;
            int level = ratio >= settings.hotFactor() * settings.hotFactor() ? 2 : ratio >= settings.hotFactor() ? 1 : 0;
            level = Math.min(level, settings.maxExtraReplicas());
            if (level > extra[p]) {
                extra[p] = level;
                sinceNanos[p] = nowNanos;
                why[p] = String.format("load %.1fx the median partition's (%.3g vs %.3g)", ratio, load[p], median);
            } else if (extra[p] > 0 && ratio < settings.coolFactor()
                    && nowNanos - sinceNanos[p] >= settings.minHold().toNanos()) {
                extra[p] = 0;
                sinceNanos[p] = nowNanos;
                why[p] = null;
            }
        }
    }

    /** Extra replicas {@code partition} should have now. */
    int extra(int partition) {
        return extra[partition];
    }

    /** Why {@code partition} has extras, for the copies made for it. */
    String why(int partition) {
        return why[partition] == null ? "hot" : why[partition];
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
