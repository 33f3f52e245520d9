package io.hedgerow.root.search;

import io.hedgerow.common.wire.proto.FetchResponse;
import io.hedgerow.common.wire.proto.SearchResponse;

/** What happens to a {@link SearchRun}, each at a time on the injected ticker. */
public sealed interface Event {
    long nowNanos();

    /** A leaf answered one copy of a partition's search. */
    record Answered(SearchCopy copy, SearchResponse response, long nowNanos) implements Event {
    }

    /** A leaf answered a fetch. */
    record Fetched(FetchCopy copy, FetchResponse response, long nowNanos) implements Event {
    }

    /** The connection that carried a sub-request closed before its answer came. */
    record ConnectionLost(SubRequest copy, String reason, long nowNanos) implements Event {
    }

    /** The timer the run asked for fired (the run handles whatever is due by {@code nowNanos}). */
    record TimerFired(long nowNanos) implements Event {
    }
}
