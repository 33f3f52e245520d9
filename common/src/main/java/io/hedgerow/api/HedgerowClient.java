package io.hedgerow.api;

import java.util.concurrent.CompletableFuture;

/**
 * Searches a Hedgerow cluster from Java. Thread-safe; calls never block.
 */
public interface HedgerowClient {

    /**
     * Runs a query over every partition and merges the top hits.
     *
     * @return a future completed with the result (possibly tainted, with its coverage), or
     *         exceptionally with a {@link SearchException}
     */
    CompletableFuture<SearchResult> search(SearchRequest request);

    /**
     * Runs a query with default settings and waits for its result.
     *
     * @throws SearchException when the search as a whole fails
     */
    default SearchResult search(String query) {
        try {
            return search(SearchRequest.of(query)).join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof SearchException searchException) {
                throw searchException;
            }
            throw e;
        }
    }
}
