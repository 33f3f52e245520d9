package io.hedgerow.root.search;

import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.common.wire.proto.Priority;
import java.util.List;

/** A fetch of some merged hits' stored fields and snippets from one leaf, which holds all of them. */
public final class FetchCopy extends SubRequest {
    private final List<HitSlot> hits;

    /** @param hits the hits it fetches, in request order */
    FetchCopy(int leaf, long requestId, SubRequestTrace.Kind kind, Priority priority, long sentNanos, List<HitSlot> hits) {
        super(leaf, requestId, kind, priority, sentNanos);
        this.hits = List.copyOf(hits);
    }

    List<HitSlot> hits() {
        return hits;
    }

    /** True when every hit it fetches has its details from some copy. */
    boolean redundant() {
        for (HitSlot hit : hits) {
            if (!hit.fetched()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int tracePartition() {
        return -1;
    }
}
