package io.hedgerow.root.placement;

import java.time.Duration;
import java.util.Objects;

/**
 * Where partition replicas live, and what moves them: re-replication after a leaf is gone for good,
 * selective replication of hot partitions, and rebalancing of hot leaves. Immutable; parsed once at
 * start-up. Each controller can be turned off alone.
 *
 * @param reReplication        copy a lost leaf's partitions to the survivors once it has been gone for
 *                             {@code grace}
 * @param grace                how long a leaf may be gone before its partitions are re-replicated: longer
 *                             than a supervisor's restart (a few seconds), so a restart moves nothing
 * @param maxOpening           copies opening at once across the cluster (each costs its target leaf a
 *                             partition open and a warm-up)
 * @param openTimeout          a copy not acknowledged open within this is given up and placed elsewhere
 * @param retireDelay          how long a copy taken out of the serving assignment stays open, so the
 *                             searches already sent to it finish, before its leaf is told to close it
 * @param selectiveReplication give partitions whose query load is hot extra replicas
 * @param hotFactor            a partition is hot while its load exceeds this multiple of the median
 *                             partition's...
 * @param coolFactor           ...and cool again once under this multiple (hysteresis: below hotFactor)
 * @param maxExtraReplicas     extra replicas a hot partition may get: one at hotFactor, another at
 *                             hotFactor squared, up to this
 * @param loadWindow           the sliding window partition load is measured over
 * @param minHold              the shortest time an extra replica is kept, however soon the load cools
 * @param rebalancing          move replicas from hot leaves to cool ones
 * @param rebalanceFactor      a leaf is hot while its estimated load exceeds this multiple of the mean
 * @param rebalanceCooldown    the shortest time between two moves of the rebalancer
 */
public record PlacementSettings(
        boolean reReplication,
        Duration grace,
        int maxOpening,
        Duration openTimeout,
        Duration retireDelay,
        boolean selectiveReplication,
        double hotFactor,
        double coolFactor,
        int maxExtraReplicas,
        Duration loadWindow,
        Duration minHold,
        boolean rebalancing,
        double rebalanceFactor,
        Duration rebalanceCooldown) {

    public PlacementSettings {
        requirePositive("grace", grace);
        if (maxOpening < 1) {
            throw new IllegalArgumentException("maxOpening: " + maxOpening + " (expected: >= 1)");
        }
        requirePositive("openTimeout", openTimeout);
        Objects.requireNonNull(retireDelay, "retireDelay");
        if (retireDelay.isNegative()) {
            throw new IllegalArgumentException("retireDelay: " + retireDelay + " (expected: >= 0)");
        }
        if (!(coolFactor > 1) || !(hotFactor > coolFactor) || Double.isInfinite(hotFactor)) {
            throw new IllegalArgumentException("hotFactor: " + hotFactor + ", coolFactor: " + coolFactor
                    + " (expected: hotFactor > coolFactor > 1, finite)");
        }
        if (maxExtraReplicas < 0) {
            throw new IllegalArgumentException("maxExtraReplicas: " + maxExtraReplicas + " (expected: >= 0)");
        }
        requirePositive("loadWindow", loadWindow);
        Objects.requireNonNull(minHold, "minHold");
        if (!(rebalanceFactor > 1) || Double.isInfinite(rebalanceFactor)) {
            throw new IllegalArgumentException("rebalanceFactor: " + rebalanceFactor + " (expected: > 1, finite)");
        }
        requirePositive("rebalanceCooldown", rebalanceCooldown);
    }

    private static void requirePositive(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
        }
    }

    /**
     * Re-replication on after 30 s, two copies opening at once; selective replication (hot at 2x the
     * median over 30 s, cool under 1.3x, up to 1 extra, kept 60 s at least) and rebalancing (a leaf
     * at 1.5x the mean, a move per 30 s at most) off: neither was measured to leave the no-fault
     * tail alone (docs/benchmarks/adaptation.md).
     */
    public static PlacementSettings defaults() {
        return new PlacementSettings(true, Duration.ofSeconds(30), 2, Duration.ofSeconds(30), Duration.ofSeconds(1),
                false, 2.0, 1.3, 1, Duration.ofSeconds(30), Duration.ofSeconds(60),
                false, 1.5, Duration.ofSeconds(30));
    }

    /** Every controller off: the assignment computed at start stays as it is. */
    public static PlacementSettings off() {
        return defaults().withReReplication(false);
    }

    public PlacementSettings withReReplication(boolean on) {
        return new PlacementSettings(on, grace, maxOpening, openTimeout, retireDelay, selectiveReplication, hotFactor,
                coolFactor, maxExtraReplicas, loadWindow, minHold, rebalancing, rebalanceFactor, rebalanceCooldown);
    }

    public PlacementSettings withGrace(Duration value) {
        return new PlacementSettings(reReplication, value, maxOpening, openTimeout, retireDelay, selectiveReplication,
                hotFactor, coolFactor, maxExtraReplicas, loadWindow, minHold, rebalancing, rebalanceFactor,
                rebalanceCooldown);
    }

    public PlacementSettings withMaxOpening(int value) {
        return new PlacementSettings(reReplication, grace, value, openTimeout, retireDelay, selectiveReplication,
                hotFactor, coolFactor, maxExtraReplicas, loadWindow, minHold, rebalancing, rebalanceFactor,
                rebalanceCooldown);
    }

    public PlacementSettings withSelectiveReplication(boolean on) {
        return new PlacementSettings(reReplication, grace, maxOpening, openTimeout, retireDelay, on, hotFactor,
                coolFactor, maxExtraReplicas, loadWindow, minHold, rebalancing, rebalanceFactor, rebalanceCooldown);
    }

    public PlacementSettings withMaxExtraReplicas(int value) {
        return new PlacementSettings(reReplication, grace, maxOpening, openTimeout, retireDelay, selectiveReplication,
                hotFactor, coolFactor, value, loadWindow, minHold, rebalancing, rebalanceFactor, rebalanceCooldown);
    }

    public PlacementSettings withRebalancing(boolean on) {
        return new PlacementSettings(reReplication, grace, maxOpening, openTimeout, retireDelay, selectiveReplication,
                hotFactor, coolFactor, maxExtraReplicas, loadWindow, minHold, on, rebalanceFactor, rebalanceCooldown);
    }

    /** Whether a controller reads the partitions' load (selective replication, rebalancing). */
    public boolean measuresLoad() {
        return selectiveReplication || rebalancing;
    }

    /** Whether any controller may change the assignment. */
    public boolean anyOn() {
        return reReplication || selectiveReplication || rebalancing;
    }
}
