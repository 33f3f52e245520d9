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
     * Send several partitions' copies to one leaf, {@code leaf}, in one message: the primaries of
     * one fan-out that chose the same leaf ({@code --leaf-batching}). Each part is a copy as a
     * {@link SendSearch} would send it, answered, cancelled and lost on its own; only the message
     * is shared. An adapter whose leaf cannot take such a message sends the parts one by one.
     */
    record SendSearches(int leaf, java.util.List<SendSearch> parts) implements Action {
        public SendSearches {
            parts = java.util.List.copyOf(parts);
            if (parts.size() < 2) {
                throw new IllegalArgumentException("parts: " + parts.size() + " (expected: >= 2; one goes as SendSearch)");
            }
            for (SendSearch part : parts) {
                if (part.copy().leaf() != leaf) {
                    throw new IllegalArgumentException("part for leaf " + part.copy().leaf() + " (expected: leaf " + leaf + ")");
                }
            }
        }
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
