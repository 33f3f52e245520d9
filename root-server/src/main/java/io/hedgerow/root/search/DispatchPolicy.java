package io.hedgerow.root.search;

import io.hedgerow.root.adapt.AdaptationSettings;
import io.hedgerow.root.adapt.LeafLoad;
import java.util.random.RandomGenerator;

/**
 * Which replica gets a sub-request, in one pluggable place. (When a backup goes out is the hedging
 * policy's, {@code io.hedgerow.root.hedge}; when the root stops waiting is the good-enough
 * cutoff's, {@code io.hedgerow.root.tail}.) Implementations are pure: no Netty, no threads, no
 * clock of their own, so tests and simulations drive them exactly.
 */
public interface DispatchPolicy {

    /**
     * Chooses the leaf for a partition's next sub-request.
     *
     * @param replicas       leaves holding the partition, preferred first
     * @param view           which leaves are reachable and how busy they are, from this event loop
     * @param excludedLeaves leaves that already have, or failed, this sub-request
     * @param random         the search's random choices (seeded in tests and simulations)
     * @return a leaf from {@code replicas}, or -1 when none may be used
     */
    int chooseReplica(int partition, int[] replicas, ReplicaView view, LeafSet excludedLeaves, RandomGenerator random);

    /** The leaf's rank among replicas (lower first), for an explain trace; null when the policy ranks none. */
    default Double rank(int leaf, ReplicaView view) {
        return null;
    }

    /** What a policy may know of the leaves when choosing a replica. */
    interface ReplicaView {
        boolean isReady(int leaf);

        /**
         * Sub-requests sent to {@code leaf} and not yet answered, those cancelled at the root
         * included: the leaf answers every one, so until it does it still holds them.
         */
        int outstanding(int leaf);

        /** What this client has learnt of the leaf's latency and queue; null when it keeps nothing. */
        default LeafLoad load(int leaf) {
            return null;
        }

        /** The leaf owes answers and has been silent for too long ({@link io.hedgerow.root.adapt.StallRule}). */
        default boolean stalled(int leaf) {
            return false;
        }

        /** The leaf is out of primary rotation ({@link io.hedgerow.root.adapt.Probation}). */
        default boolean onProbation(int leaf) {
            return false;
        }

        /**
         * The leaf's replica of the partition missed acknowledged writes and has not caught up
         * ({@link io.hedgerow.root.cluster.StaleReplicas}).
         */
        default boolean stale(int partition, int leaf) {
            return false;
        }

        /**
         * The fraction (0..1] of the primaries it would win that the leaf should get: below 1 while
         * it is in slow start ({@link io.hedgerow.root.adapt.SlowStart}).
         */
        default double share(int leaf) {
            return 1;
        }
    }

    /** The fewest outstanding replica, ties to the preferred one; probation, stalled and stale replicas last. */
    static DispatchPolicy leastOutstanding() {
        return new ReplicaChoice(false, 1);
    }

    /**
     * The policy {@code settings} ask for: C3's ranking with the power of two choices, or the fewest
     * outstanding.
     *
     * @param clients the root's event loops, each with its own connections (C3's concurrency compensation)
     */
    static DispatchPolicy of(AdaptationSettings settings, int clients) {
        return new ReplicaChoice(settings.latencyAwareChoice(), clients);
    }
}
