package io.hedgerow.root.search;

import io.hedgerow.root.adapt.LeafLoad;
import io.hedgerow.root.adapt.ReplicaRank;
import java.util.random.RandomGenerator;

/**
 * The root's replica choice. Of the partition's replicas that are ready and not excluded, those in
 * rotation come first, those on probation only when no such replica is left (a partition keeps
 * being served), then stalled ones: a stopped process keeps its connections open, so only its
 * silence shows it, and it gets work only when the partition has no other replica to try (a stall
 * is a guess; failing the partition outright would be worse). Last of all, a replica that missed
 * acknowledged writes (stale): its answers would lack them, so it is read only when nothing else can
 * answer for the partition.
 *
 * <p>Among the first group: with {@code latencyAware}, the better of two by C3's rank ({@link
 * ReplicaRank}), two drawn at random when there are more (the power of two choices: every client
 * herding onto the one best-ranked leaf would make it the worst); a leaf this client knows nothing
 * of yet is compared by outstanding calls instead. Without, the fewest outstanding of all. Ties go
 * to the preferred (first) replica. The passed-over one of the two has its load nudged halfway toward
 * the winner's ({@link LeafLoad#passedOver}, as Elasticsearch does): without it, at light load, a
 * replica once measured slower would never be chosen again, nor measured, and every partition's
 * work would stay on the other. Pure but for that nudge.
 *
 * <p>Last, slow start ({@link io.hedgerow.root.adapt.SlowStart}): a winner that came back recently
 * keeps the choice only with the probability of its share, else the runner-up gets it.
 */
final class ReplicaChoice implements DispatchPolicy {
    private final boolean latencyAware;
    private final int clients;

    ReplicaChoice(boolean latencyAware, int clients) {
        if (clients < 1) {
            throw new IllegalArgumentException("clients: " + clients + " (expected: >= 1)");
        }
        this.latencyAware = latencyAware;
        this.clients = clients;
    }

    @Override
    public int chooseReplica(int partition, int[] replicas, ReplicaView view, LeafSet excludedLeaves,
            RandomGenerator random) {
        if (replicas.length > Long.SIZE) {
            throw new IllegalArgumentException("replicas: " + replicas.length + " of partition " + partition
                    + " (expected: <= 64)");
        }
        // Tiers: in rotation, on probation, stalled, stale; only the best tier present competes. Its
        // members are bits of a mask (indices into replicas): no allocation per choice.
        long candidates = 0;
        int bestTier = Integer.MAX_VALUE;
        for (int i = 0; i < replicas.length; i++) {
            int leaf = replicas[i];
            if (excludedLeaves.contains(leaf) || !view.isReady(leaf)) {
                continue;
            }
            int tier = view.stale(partition, leaf) ? 3 : view.stalled(leaf) ? 2 : view.onProbation(leaf) ? 1 : 0;
            if (tier < bestTier) {
                bestTier = tier;
                candidates = 0; // the worse tiers met so far are only a fallback
            }
            if (tier == bestTier) {
                candidates |= 1L << i;
            }
        }
        int count = Long.bitCount(candidates);
        if (count <= 1) {
            return count == 0 ? -1 : replicas[Long.numberOfTrailingZeros(candidates)];
        }
        if (!latencyAware) {
            int best = -1;
            int second = -1;
            for (long rest = candidates; rest != 0; rest &= rest - 1) {
                int leaf = replicas[Long.numberOfTrailingZeros(rest)];
                if (best < 0 || view.outstanding(leaf) < view.outstanding(best)) {
                    second = best;
                    best = leaf;
                } else if (second < 0 || view.outstanding(leaf) < view.outstanding(second)) {
                    second = leaf;
                }
            }
            return slowStarted(best, second, view, random);
        }
        int first = 0;
        int second = 1;
        if (count > 2) {
            first = random.nextInt(count);
            second = random.nextInt(count - 1);
            if (second >= first) {
                second++;
            }
            if (second < first) { // keep the preferred order for ties
                int swap = first;
                first = second;
                second = swap;
            }
        }
        int a = replicas[nthSetBit(candidates, first)];
        int b = replicas[nthSetBit(candidates, second)];
        int winner = better(a, b, view) ? a : b;
        int loser = winner == a ? b : a;
        LeafLoad loserLoad = view.load(loser);
        LeafLoad winnerLoad = view.load(winner);
        if (loserLoad != null && winnerLoad != null) {
            loserLoad.passedOver(winnerLoad);
        }
        return slowStarted(winner, loser, view, random);
    }

    /**
     * The winner, or the runner-up instead when the winner is in slow start and loses the draw of
     * its share (and the runner-up has a larger share): a returning leaf gets its share of the
     * primaries it would win. No draw unless a share is below 1, so choices among leaves out of slow
     * start use no randomness beyond the two choices'.
     */
    private static int slowStarted(int winner, int runnerUp, ReplicaView view, RandomGenerator random) {
        double share = view.share(winner);
        if (share >= 1 || view.share(runnerUp) <= share) {
            return winner;
        }
        return random.nextDouble() < share ? winner : runnerUp;
    }

    /** The index of the {@code n}-th (from 0) set bit of {@code bits}, lowest first. */
    private static int nthSetBit(long bits, int n) {
        long rest = bits;
        for (int i = 0; i < n; i++) {
            rest &= rest - 1;
        }
        return Long.numberOfTrailingZeros(rest);
    }

    @Override
    public Double rank(int leaf, ReplicaView view) {
        LeafLoad load = view.load(leaf);
        return latencyAware && load != null && load.samples() > 0 ? rank(load, view.outstanding(leaf)) : null;
    }

    /** True when {@code a} (the preferred of the two) is at least as good as {@code b}. */
    private boolean better(int a, int b, ReplicaView view) {
        LeafLoad loadA = view.load(a);
        LeafLoad loadB = view.load(b);
        if (loadA == null || loadB == null || loadA.samples() == 0 || loadB.samples() == 0) {
            return view.outstanding(a) <= view.outstanding(b);
        }
        return rank(loadA, view.outstanding(a)) <= rank(loadB, view.outstanding(b));
    }

    private double rank(LeafLoad load, int outstanding) {
        return ReplicaRank.rank(load.responseNanos(), load.serviceNanos(), load.queueLength(), outstanding, clients);
    }
}
