package io.hedgerow.root.fanout;

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
     * @return a leaf from {@code replicas}, or -1 when none may be used
     */
    int chooseReplica(int partition, int[] replicas, ReplicaView view, LeafSet excludedLeaves);

    /** What a policy may know of the leaves when choosing a replica. */
    interface ReplicaView {
        boolean isReady(int leaf);

        /** Sub-requests sent to {@code leaf} and not yet answered. */
        int outstanding(int leaf);
    }

    /** Least outstanding replica, ties to the preferred one. */
    static DispatchPolicy leastOutstanding() {
        return LeastOutstandingPolicy.INSTANCE;
    }
}
