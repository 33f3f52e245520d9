package io.hedgerow.root.search;

import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.common.wire.proto.Priority;

/**
 * One copy of a partition's query-phase sub-request. A partition may have several over a search
 * (a canary, a retry after a failure, backups, a tied twin); the first to answer wins.
 */
public final class SearchCopy extends SubRequest {
    private final int partition;
    /** Cancelled because a tied twin answered first: its late answer tells whether both ran. */
    private boolean tiedLoser;
    /** Sent to an out-of-sync replica (the partition's last resort): its answer may lack acknowledged writes. */
    private boolean stale;

    SearchCopy(int partition, int leaf, long requestId, SubRequestTrace.Kind kind, Priority priority, long sentNanos) {
        super(leaf, requestId, kind, priority, sentNanos);
        this.partition = partition;
    }

    int partition() {
        return partition;
    }

    void markTiedLoser() {
        tiedLoser = true;
    }

    public boolean tiedLoser() {
        return tiedLoser;
    }

    void markStale() {
        stale = true;
    }

    /** Went to an out-of-sync replica of its partition. */
    boolean stale() {
        return stale;
    }

    @Override
    public int tracePartition() {
        return partition;
    }
}
