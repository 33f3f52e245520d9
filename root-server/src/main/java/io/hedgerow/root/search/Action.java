package io.hedgerow.root.search;

import io.hedgerow.api.SearchException;
import io.hedgerow.api.SearchResult;
import io.hedgerow.common.wire.proto.FetchRequest;
import io.hedgerow.common.wire.proto.SearchRequest;

/**
 * What a {@link SearchRun} asks its adapter to do, in order. The adapter only executes: every
 * decision (which leaf, which class, when, whether to cancel) is already made.
 */
public sealed interface Action {

    /** Send one copy of a partition's search to {@code copy.leaf()}, at {@code copy.priority()}. */
    record SendSearch(SearchCopy copy, SearchRequest wire) implements Action {
    }

    /**
     * Send a shadow copy of a partition's search to {@code copy.leaf()}, a leaf on probation, at the
     * SHADOW class: only to measure the leaf. Its answer is dropped and the run never hears of it.
     */
    record SendShadow(SearchCopy copy, SearchRequest wire) implements Action {
    }

    /** Send one fetch to {@code copy.leaf()}. */
    record SendFetch(FetchCopy copy, FetchRequest wire) implements Action {
    }

    /** Stop waiting for a sub-request and tell its leaf to drop it. */
    record Cancel(SubRequest copy) implements Action {
    }

    /**
     * Wake the run at {@code atNanos} on the injected ticker with {@link Event.TimerFired}; replaces
     * the timer asked for before (a run has at most one).
     */
    record ArmTimer(long atNanos) implements Action {
    }

    /** The search is over: answer with this result. The run's timer is no longer needed. */
    record Finish(SearchResult result) implements Action {
    }

    /** The search failed as a whole. The run's timer is no longer needed. */
    record Fail(SearchException failure) implements Action {
    }
}
