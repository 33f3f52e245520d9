package io.hedgerow.leaf.search;

import org.apache.lucene.search.IndexSearcher;

/**
 * The cost guards of a leaf: limits that refuse a query before it runs, each named in the refusal
 * by the leaf flag that sets it, so a client knows which limit it hit.
 *
 * <p>The expansion limits hold per query and per partition, summed over every wildcard, prefix,
 * fuzzy, regexp and range part of the query: one part's limit alone let a query of 1,024 clauses
 * expand to a million terms. They count what enumerating the terms costs as well as what it finds:
 * a pattern such as {@code /a.*zzzz/} matches nothing but reads every term that starts with
 * {@code a}.
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
 * @param maxExpansionsTotal   the most index terms all of a query's expanding parts may match together
 *                             in a partition ({@code --max-expansions-total})
 * @param maxExpansionPostings the most postings (summed document frequencies) the terms all of a
 *                             query's expanding parts match may have in a partition
 *                             ({@code --max-expansion-postings})
 * @param maxTermsVisited      the most terms enumerating all of a query's expanding parts may visit in a
 *                             partition, matching or not ({@code --max-terms-visited})
 * @param maxPhraseCost        the most a phrase may cost: its terms times its slop plus one
 *                             ({@code --max-phrase-cost}); a sloppy phrase reads and matches positions
 *                             for every document its terms share, more of them the longer and looser it is
 */
public record QueryLimits(int maxQueryChars, int maxClauses, int maxExpansions, boolean allowLeadingWildcard,
        int maxExpansionsTotal, long maxExpansionPostings, long maxTermsVisited, int maxPhraseCost) {
    /** As the root's own limit on the query parameter. */
    public static final int DEFAULT_MAX_QUERY_CHARS = 8192;
    /** Lucene's default clause limit. */
    public static final int DEFAULT_MAX_CLAUSES = 1024;
    /** A wildcard that matches this many terms costs about what a query of as many clauses does. */
    public static final int DEFAULT_MAX_EXPANSIONS = 1024;
    /** Four patterns at their own limit; far below what 1,024 clauses could expand to. */
    public static final int DEFAULT_MAX_EXPANSIONS_TOTAL = 4096;
    /**
     * Two million postings: a few hundred milliseconds of one core on any partition size, where the
     * expanded terms of one ordinary prefix read a few thousand.
     */
    public static final long DEFAULT_MAX_EXPANSION_POSTINGS = 2_000_000;
    /** Ten terms visited for each term a query may match at the most. */
    public static final long DEFAULT_MAX_TERMS_VISITED = 10L * DEFAULT_MAX_EXPANSIONS_TOTAL;
    /** Ten terms at slop 9, five at slop 19, two at slop 49. */
    public static final int DEFAULT_MAX_PHRASE_COST = 100;

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
        if (maxExpansionsTotal < 1) {
            throw new IllegalArgumentException("maxExpansionsTotal: " + maxExpansionsTotal + " (expected: >= 1)");
        }
        if (maxExpansionPostings < 1) {
            throw new IllegalArgumentException("maxExpansionPostings: " + maxExpansionPostings + " (expected: >= 1)");
        }
        if (maxTermsVisited < 1) {
            throw new IllegalArgumentException("maxTermsVisited: " + maxTermsVisited + " (expected: >= 1)");
        }
        if (maxPhraseCost < 1) {
            throw new IllegalArgumentException("maxPhraseCost: " + maxPhraseCost + " (expected: >= 1)");
        }
    }

    /** The four original limits, and the defaults of the per-query budgets. */
    public QueryLimits(int maxQueryChars, int maxClauses, int maxExpansions, boolean allowLeadingWildcard) {
        this(maxQueryChars, maxClauses, maxExpansions, allowLeadingWildcard, DEFAULT_MAX_EXPANSIONS_TOTAL,
                DEFAULT_MAX_EXPANSION_POSTINGS, DEFAULT_MAX_TERMS_VISITED, DEFAULT_MAX_PHRASE_COST);
    }

    public static QueryLimits defaults() {
        return new QueryLimits(DEFAULT_MAX_QUERY_CHARS, DEFAULT_MAX_CLAUSES, DEFAULT_MAX_EXPANSIONS, false);
    }

    /** No limit a query can reach, as a root parses (the leaves enforce theirs). */
    public static QueryLimits unlimited() {
        return new QueryLimits(Integer.MAX_VALUE, IndexSearcher.getMaxClauseCount(), Integer.MAX_VALUE, true,
                Integer.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, Integer.MAX_VALUE);
    }

    public QueryLimits withMaxQueryChars(int chars) {
        return new QueryLimits(chars, maxClauses, maxExpansions, allowLeadingWildcard, maxExpansionsTotal,
                maxExpansionPostings, maxTermsVisited, maxPhraseCost);
    }

    public QueryLimits withMaxClauses(int clauses) {
        return new QueryLimits(maxQueryChars, clauses, maxExpansions, allowLeadingWildcard, maxExpansionsTotal,
                maxExpansionPostings, maxTermsVisited, maxPhraseCost);
    }

    public QueryLimits withMaxExpansions(int expansions) {
        return new QueryLimits(maxQueryChars, maxClauses, expansions, allowLeadingWildcard, maxExpansionsTotal,
                maxExpansionPostings, maxTermsVisited, maxPhraseCost);
    }

    public QueryLimits withLeadingWildcard(boolean allowed) {
        return new QueryLimits(maxQueryChars, maxClauses, maxExpansions, allowed, maxExpansionsTotal,
                maxExpansionPostings, maxTermsVisited, maxPhraseCost);
    }

    public QueryLimits withMaxExpansionsTotal(int total) {
        return new QueryLimits(maxQueryChars, maxClauses, maxExpansions, allowLeadingWildcard, total,
                maxExpansionPostings, maxTermsVisited, maxPhraseCost);
    }

    public QueryLimits withMaxExpansionPostings(long postings) {
        return new QueryLimits(maxQueryChars, maxClauses, maxExpansions, allowLeadingWildcard, maxExpansionsTotal,
                postings, maxTermsVisited, maxPhraseCost);
    }

    public QueryLimits withMaxTermsVisited(long visited) {
        return new QueryLimits(maxQueryChars, maxClauses, maxExpansions, allowLeadingWildcard, maxExpansionsTotal,
                maxExpansionPostings, visited, maxPhraseCost);
    }

    public QueryLimits withMaxPhraseCost(int cost) {
        return new QueryLimits(maxQueryChars, maxClauses, maxExpansions, allowLeadingWildcard, maxExpansionsTotal,
                maxExpansionPostings, maxTermsVisited, cost);
    }
}
