package io.hedgerow.root.tail;

import io.hedgerow.api.SearchResult;

/**
 * Which of two results of one cache key is worth keeping or serving: the pure rules behind
 * {@link ResultCache}'s conditional stores and its refresh of tainted entries.
 */
public final class CacheRules {

    private CacheRules() {
    }

    /**
     * The rule for a request that found a tainted entry and ran afresh: the fresh result, unless it
     * is itself short of complete and covers less than the cached one, in which case the cached one
     * (which stays tainted: it is never served as complete). Coverage is compared by document
     * fraction, then by partitions answered; a tie goes to the fresh result, being newer. Pure.
     */
    public static SearchResult choose(SearchResult cachedTainted, SearchResult fresh) {
        if (isComplete(fresh)) {
            return fresh;
        }
        double freshDocs = fresh.coverage().docsFraction();
        double cachedDocs = cachedTainted.coverage().docsFraction();
        if (freshDocs != cachedDocs) {
            return freshDocs < cachedDocs ? cachedTainted : fresh;
        }
        return fresh.coverage().partitionsAnswered() < cachedTainted.coverage().partitionsAnswered()
                ? cachedTainted : fresh;
    }

    /** True when a result may be served from the cache as complete: every partition answered, no error. */
    public static boolean isComplete(SearchResult result) {
        return result.coverage().complete() && result.errors().isEmpty();
    }

    /**
     * The rule for two results of one key, whichever came first: true when {@code candidate} should
     * replace {@code held}. A complete result replaces anything (a newer complete one too); a tainted
     * one never replaces a complete one, and replaces a tainted one unless it covers less
     * ({@link #choose}: by document fraction, then partitions answered). Pure.
     */
    public static boolean prefer(SearchResult candidate, SearchResult held) {
        if (isComplete(candidate)) {
            return true;
        }
        if (isComplete(held)) {
            return false;
        }
        return choose(held, candidate) == candidate;
    }
}
