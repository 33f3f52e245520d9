package io.hedgerow.leaf.search;

import java.util.function.Supplier;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.AutomatonQuery;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.PrefixQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.RegexpQuery;
import org.apache.lucene.search.WildcardQuery;
import org.apache.lucene.util.automaton.ByteRunAutomaton;
import org.apache.lucene.util.automaton.Operations;

/**
 * Refuses parsed queries that would explode before they run: more leaf clauses than Lucene's
 * clause limit (which {@link IndexSearcher} would otherwise only enforce mid-search, as an error
 * rather than a bad query), and wildcards, prefixes and regular expressions with fewer than
 * {@value #MIN_LITERAL_PREFIX} literal leading characters, which expand to a large share of the
 * term dictionary on every partition.
 */
final class QueryCostGuard {
    /** Literal characters a wildcard, prefix or regexp must start with. */
    static final int MIN_LITERAL_PREFIX = 2;

    private QueryCostGuard() {
    }

    /** @throws BadQueryException saying which part of the query is refused and why */
    static void check(Query query) throws BadQueryException {
        Visitor visitor = new Visitor();
        query.visit(visitor);
        if (visitor.refused != null) {
            throw new BadQueryException(visitor.refused, null);
        }
        if (visitor.clauses > IndexSearcher.getMaxClauseCount()) {
            throw new BadQueryException("too many clauses: " + visitor.clauses + " (the limit is "
                    + IndexSearcher.getMaxClauseCount() + "; each term counts once per default field)", null);
        }
    }

    /** Counts leaf clauses as IndexSearcher does, and remembers the first refused multi-term query. */
    private static final class Visitor extends QueryVisitor {
        int clauses;
        String refused;

        @Override
        public QueryVisitor getSubVisitor(BooleanClause.Occur occur, Query parent) {
            return this;
        }

        @Override
        public void consumeTerms(Query query, Term... terms) {
            clauses++;
        }

        @Override
        public void consumeTermsMatching(Query query, String field,
                Supplier<ByteRunAutomaton> automaton) {
            clauses++;
            if (refused == null && isExpanding(query)) {
                String prefix = Operations.getCommonPrefix(((AutomatonQuery) query).getAutomaton());
                if (prefix.codePointCount(0, prefix.length()) < MIN_LITERAL_PREFIX) {
                    refused = "'" + query + "' would expand to too many terms (expected: at least "
                            + MIN_LITERAL_PREFIX + " literal characters before a wildcard or pattern)";
                }
            }
        }

        @Override
        public void visitLeaf(Query query) {
            clauses++;
        }

        private static boolean isExpanding(Query query) {
            return query instanceof PrefixQuery || query instanceof WildcardQuery || query instanceof RegexpQuery;
        }
    }
}
