package io.hedgerow.root.sim;

import io.hedgerow.root.fanout.DetachedRoot;

/** One copy of a sub-request at a modelled leaf, from its arrival to its answer. */
final class SimTask {
    enum State { HELD, QUEUED, RUNNING, DONE }

    final DetachedRoot.Copy copy;
    /** The copy's request id, kept here: the leaf's map is looked up by it twice a sub-request. */
    final long requestId;
    final long arrivedNanos;
    State state;
    long startedNanos;
    /** When its work ends, while it runs: a cancel that stops it takes the rest off the leaf's busy time. */
    long endNanos;
    /** Its work on the shared cores while it runs, when the cores are shared. */
    SharedCpu.Job job;

    SimTask(DetachedRoot.Copy copy, long arrivedNanos) {
        this.copy = copy;
        this.requestId = copy.requestId();
        this.arrivedNanos = arrivedNanos;
    }
}
