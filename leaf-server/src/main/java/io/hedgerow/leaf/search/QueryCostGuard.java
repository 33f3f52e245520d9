package io.hedgerow.leaf.search;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.AutomatonQuery;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.MultiTermQuery;
import org.apache.lucene.search.PrefixQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.RegexpQuery;
import org.apache.lucene.search.WildcardQuery;
import org.apache.lucene.util.automaton.ByteRunAutomaton;
import org.apache.lucene.util.automaton.Operations;

/**
 * Refuses queries that would explode, before they run ({@link QueryLimits}). Two checks need only
 * the parsed query and run once, when it is parsed ({@link #check}): the number of leaf clauses
 * (which {@code IndexSearcher} would otherwise only enforce mid-search, as an error rather than a
 * bad query) and leading wildcards. One needs the index and runs on each partition before the
 * search ({@link #checkExpansions}): how many terms each multi-term query matches, counted on the
 * partition's term dictionary and stopped one past the limit, so the count costs at most what the
 * limit allows.
 */
final class QueryCostGuard {
    private QueryCostGuard() {
    }

    /** @throws BadQueryException naming the limit the query is over */
    static void check(Query query, QueryLimits limits) throws BadQueryException {
        Visitor visitor = new Visitor();
        query.visit(visitor);
        if (!limits.allowLeadingWildcard()) {
            for (MultiTermQuery pattern : visitor.multiTerm) {
                if (startsWithPattern(pattern)) {
                    throw new BadQueryException("'" + pattern + "' starts with a wildcard or pattern (leading"
                            + " wildcards are refused unless the leaf runs with --allow-leading-wildcard)", null);
                }
            }
        }
        if (visitor.clauses > limits.maxClauses()) {
            throw new BadQueryException("too many clauses: " + visitor.clauses + " (expected: <= "
                    + limits.maxClauses() + ", the leaf's --max-clauses; each term counts once per default field)",
                    null);
        }
    }

    /**
     * Counts, on one partition, the terms each wildcard, prefix, fuzzy, regexp or range query in
     * {@code query} matches.
     *
     * @throws BadQueryException naming the first one that matches more than the limit
     */
    static void checkExpansions(Query query, IndexReader reader, QueryLimits limits, int partition)
            throws BadQueryException, IOException {
        Visitor visitor = new Visitor();
        query.visit(visitor);
        for (MultiTermQuery multiTerm : visitor.multiTerm) {
            Terms terms = MultiTerms.getTerms(reader, multiTerm.getField());
            if (terms == null) {
                continue;
            }
            TermsEnum matching = multiTerm.getTermsEnum(terms);
            int count = 0;
            while (matching.next() != null) {
                if (++count > limits.maxExpansions()) {
                    throw new BadQueryException("'" + multiTerm + "' matches more than " + limits.maxExpansions()
                            + " terms in partition " + partition + " (expected: <= " + limits.maxExpansions()
                            + ", the leaf's --max-expansions)", null);
                }
            }
        }
    }

    /** A prefix, wildcard or regexp whose first character is not a literal. */
    private static boolean startsWithPattern(MultiTermQuery query) {
        if (!(query instanceof PrefixQuery || query instanceof WildcardQuery || query instanceof RegexpQuery)) {
            return false;
        }
        return Operations.getCommonPrefix(((AutomatonQuery) query).getAutomaton()).isEmpty();
    }

    /** Counts leaf clauses as IndexSearcher does, and collects the multi-term queries. */
    private static final class Visitor extends QueryVisitor {
        int clauses;
        final List<MultiTermQuery> multiTerm = new ArrayList<>();

        @Override
        public QueryVisitor getSubVisitor(BooleanClause.Occur occur, Query parent) {
            return this;
        }

        @Override
        public void consumeTerms(Query query, Term... terms) {
            clauses++;
        }

        @Override
        public void consumeTermsMatching(Query query, String field, Supplier<ByteRunAutomaton> automaton) {
            clauses++;
            if (query instanceof MultiTermQuery mtq) {
                multiTerm.add(mtq);
            }
        }

        @Override
        public void visitLeaf(Query query) {
            clauses++;
        }
    }
}
