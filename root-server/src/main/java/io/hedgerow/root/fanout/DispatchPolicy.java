package io.hedgerow.root.fanout;

/**
 * The decisions of per-partition dispatch, in one pluggable place: which replica gets a
 * sub-request, and when the root stops waiting for the partitions still out. (When a backup goes
 * out is the hedging policy's: {@code io.hedgerow.root.hedge}.) Implementations are pure: no Netty, no threads, no clock of their own
 * (time comes in as arguments), so tests and simulations drive them exactly.
 */
public interface DispatchPolicy {

    /**
     * Chooses the leaf for a partition's next sub-request.
     *
     * @param replicas       leaves holding the partition, preferred first
     * @param view           which leaves are reachable and how busy they are, from this event loop
     * @param excludedLeaves bit i set: leaf i already has, or failed, this sub-request
     * @return a leaf from {@code replicas}, or -1 when none may be used
     */
    int chooseReplica(int partition, int[] replicas, ReplicaView view, long excludedLeaves);

    /**
     * Asked after every answer while partitions are still out: true ends the wait now and returns
     * what has answered, marked tainted.
     *
     * @param answered      partitions answered so far
     * @param total         partitions asked
     * @param docsFraction  fraction of documents the answered partitions hold
     * @param elapsedNanos  time since the query started
     */
    boolean stopWaiting(int answered, int total, double docsFraction, long elapsedNanos);

    /** What a policy may know of the leaves when choosing a replica. */
    interface ReplicaView {
        boolean isReady(int leaf);

        /** Sub-requests sent to {@code leaf} and not yet answered. */
        int outstanding(int leaf);
    }

    /** Least outstanding replica (ties to the preferred one), wait for all. */
    static DispatchPolicy leastOutstanding() {
        return LeastOutstandingPolicy.INSTANCE;
    }
}
