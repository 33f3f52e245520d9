package io.hedgerow.root.sim;

import io.hedgerow.root.fanout.DetachedRoot;

/** One copy of a sub-request at a modelled leaf, from its arrival to its answer. */
final class SimTask {
    enum State { HELD, QUEUED, RUNNING, DONE }

    final DetachedRoot.Copy copy;
    final long arrivedNanos;
    State state;
    long startedNanos;

    SimTask(DetachedRoot.Copy copy, long arrivedNanos) {
        this.copy = copy;
        this.arrivedNanos = arrivedNanos;
    }
}
