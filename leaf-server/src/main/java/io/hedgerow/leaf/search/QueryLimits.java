package io.hedgerow.leaf.search;

import org.apache.lucene.search.IndexSearcher;

/**
 * The cost guards of a leaf: limits that refuse a query before it runs, each named in the refusal
 * by the leaf flag that sets it, so a client knows which limit it hit.
 *
 * @param maxQueryChars        the longest query string, in characters ({@code --max-query-chars}; the
 *                             root refuses longer ones too)
 * @param maxClauses           the most leaf clauses a query may have, counting each term once per
 *                             default field ({@code --max-clauses}); at most Lucene's own limit
 * @param maxExpansions        the most index terms one wildcard, prefix, fuzzy, regexp or range query
 *                             may match in a partition ({@code --max-expansions})
 * @param allowLeadingWildcard whether a wildcard, prefix or regexp may start with a pattern rather
 *                             than a literal character ({@code --allow-leading-wildcard}): such a
 *                             query reads the whole term dictionary of every partition
 */
public record QueryLimits(int maxQueryChars, int maxClauses, int maxExpansions, boolean allowLeadingWildcard) {
    /** As the root's own limit on the query parameter. */
    public static final int DEFAULT_MAX_QUERY_CHARS = 8192;
    /** Lucene's default clause limit. */
    public static final int DEFAULT_MAX_CLAUSES = 1024;
    /** A wildcard that matches this many terms costs about what a query of as many clauses does. */
    public static final int DEFAULT_MAX_EXPANSIONS = 1024;

    public QueryLimits {
        if (maxQueryChars < 1) {
            throw new IllegalArgumentException("maxQueryChars: " + maxQueryChars + " (expected: >= 1)");
        }
        if (maxClauses < 1 || maxClauses > IndexSearcher.getMaxClauseCount()) {
            throw new IllegalArgumentException("maxClauses: " + maxClauses + " (expected: 1.."
                    + IndexSearcher.getMaxClauseCount() + ", Lucene's own limit)");
        }
        if (maxExpansions < 1) {
            throw new IllegalArgumentException("maxExpansions: " + maxExpansions + " (expected: >= 1)");
        }
    }

    public static QueryLimits defaults() {
        return new QueryLimits(DEFAULT_MAX_QUERY_CHARS, DEFAULT_MAX_CLAUSES, DEFAULT_MAX_EXPANSIONS, false);
    }

    public QueryLimits withMaxQueryChars(int chars) {
        return new QueryLimits(chars, maxClauses, maxExpansions, allowLeadingWildcard);
    }

    public QueryLimits withMaxClauses(int clauses) {
        return new QueryLimits(maxQueryChars, clauses, maxExpansions, allowLeadingWildcard);
    }

    public QueryLimits withMaxExpansions(int expansions) {
        return new QueryLimits(maxQueryChars, maxClauses, expansions, allowLeadingWildcard);
    }

    public QueryLimits withLeadingWildcard(boolean allowed) {
        return new QueryLimits(maxQueryChars, maxClauses, maxExpansions, allowed);
    }
}
