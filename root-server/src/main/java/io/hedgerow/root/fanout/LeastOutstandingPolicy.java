package io.hedgerow.root.fanout;

/**
 * The foundation's policy: send each sub-request to the ready replica with the fewest answers
 * outstanding from this event loop, the preferred replica on ties.
 */
enum LeastOutstandingPolicy implements DispatchPolicy {
    INSTANCE;

    @Override
    public int chooseReplica(int partition, int[] replicas, ReplicaView view, LeafSet excludedLeaves) {
        int best = -1;
        int bestOutstanding = Integer.MAX_VALUE;
        for (int leaf : replicas) {
            if (excludedLeaves.contains(leaf) || !view.isReady(leaf)) {
                continue;
            }
            int outstanding = view.outstanding(leaf);
            if (outstanding < bestOutstanding) {
                best = leaf;
                bestOutstanding = outstanding;
            }
        }
        return best;
    }
}
