package io.hedgerow.leaf.search;

/**
 * What a query is expected to cost on one partition, estimated from the index's term statistics
 * before the query is rewritten or any weight or scorer is built ({@link QueryCostEstimator}).
 *
 * @param estimate       the work, in postings: {@code postings} plus {@code termsVisited}
 * @param postings       the document frequencies of the query's terms and of the terms its expanding
 *                       parts match, phrase terms weighted for the positions they read; a document
 *                       matched by the whole partition (match-all, point ranges) counts once
 * @param expandedTerms  the terms its wildcard, prefix, fuzzy, regexp and range parts match, together
 * @param termsVisited   the terms enumerating those parts visited, matching or not
 */
public record QueryCost(long estimate, long postings, long expandedTerms, long termsVisited) {
    /** Nothing to do: a query with no terms in this partition. */
    public static final QueryCost NONE = new QueryCost(0, 0, 0, 0);

    public QueryCost {
        if (postings < 0 || expandedTerms < 0 || termsVisited < 0 || estimate != saturatedSum(postings, termsVisited)) {
            throw new IllegalArgumentException("cost: estimate " + estimate + ", postings " + postings + ", expanded "
                    + expandedTerms + ", visited " + termsVisited
                    + " (expected: counts >= 0 and the estimate their sum of postings and terms visited)");
        }
    }

    public static QueryCost of(long postings, long expandedTerms, long termsVisited) {
        return new QueryCost(saturatedSum(postings, termsVisited), postings, expandedTerms, termsVisited);
    }

    private static long saturatedSum(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }
}
