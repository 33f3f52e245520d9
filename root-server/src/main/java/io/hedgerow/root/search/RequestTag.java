package io.hedgerow.root.search;

import java.util.Objects;

/**
 * What the HTTP layer tells a search about the request it runs for, beyond the query: the request's
 * id, which every sub-request carries to its leaf (for the leaf's log lines) and the answer carries
 * back; and how slow the search must be for its result to hold the explain trace even though the
 * client did not ask for one, so that the slow-query log can write it.
 *
 * @param requestId            the request's id; empty for none
 * @param traceSlowerThanNanos a search that takes at least this long gets its trace built;
 *                             {@link Long#MAX_VALUE} for never
 */
public record RequestTag(String requestId, long traceSlowerThanNanos) {
    /** No request id, and no trace unless asked for: searches that come from no HTTP request. */
    public static final RequestTag NONE = new RequestTag("", Long.MAX_VALUE);

    public RequestTag {
        Objects.requireNonNull(requestId, "requestId");
        if (traceSlowerThanNanos < 0) {
            throw new IllegalArgumentException("traceSlowerThanNanos: " + traceSlowerThanNanos + " (expected: >= 0)");
        }
    }

    /** Whether a search that took {@code tookNanos} gets its trace built for the slow-query log. */
    public boolean traces(long tookNanos) {
        return tookNanos >= traceSlowerThanNanos;
    }
}
