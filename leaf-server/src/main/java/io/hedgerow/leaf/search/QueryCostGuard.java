package io.hedgerow.leaf.search;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.AutomatonQuery;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.MultiPhraseQuery;
import org.apache.lucene.search.MultiTermQuery;
import org.apache.lucene.search.PhraseQuery;
import org.apache.lucene.search.PrefixQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.RegexpQuery;
import org.apache.lucene.search.WildcardQuery;
import org.apache.lucene.util.automaton.ByteRunAutomaton;
import org.apache.lucene.util.automaton.Operations;

/**
 * Refuses queries that would explode, before they run ({@link QueryLimits}), on what the parsed
 * query alone shows, once, when it is parsed: the number of leaf clauses (which {@code
 * IndexSearcher} would otherwise only enforce mid-search, as an error rather than a bad query),
 * leading wildcards, and phrases whose terms times slop are past the limit. What needs the index
 * (how many terms the expanding parts match, and what finding them costs) is {@link
 * QueryCostEstimator}'s, on each partition before the query's set-up.
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
                    + limits.maxClauses() + ", the leaf's --max-clauses; each term counts once per default field, and with lang once per language copy searched)",
                    null);
        }
        for (Query phrase : visitor.phrases) {
            long cost = phraseCost(phrase);
            if (cost > limits.maxPhraseCost()) {
                throw new BadQueryException("the phrase '" + phrase + "' costs " + cost + " (its terms times its slop"
                        + " plus one; expected: <= " + limits.maxPhraseCost() + ", the leaf's --max-phrase-cost)", null);
            }
        }
    }

    /** Terms (every alternative of a multi-phrase counted) times slop plus one; 0 for other queries. */
    static long phraseCost(Query query) {
        return switch (query) {
            case PhraseQuery phrase -> (long) phrase.getTerms().length * (phrase.getSlop() + 1L);
            case MultiPhraseQuery phrase -> {
                long terms = 0;
                for (Term[] alternatives : phrase.getTermArrays()) {
                    terms += alternatives.length;
                }
                yield terms * (phrase.getSlop() + 1L);
            }
            default -> 0;
        };
    }

    /** A prefix, wildcard or regexp whose first character is not a literal. */
    private static boolean startsWithPattern(MultiTermQuery query) {
        if (!(query instanceof PrefixQuery || query instanceof WildcardQuery || query instanceof RegexpQuery)) {
            return false;
        }
        return Operations.getCommonPrefix(((AutomatonQuery) query).getAutomaton()).isEmpty();
    }

    /** Counts leaf clauses as IndexSearcher does, and collects the multi-term queries and the phrases. */
    private static final class Visitor extends QueryVisitor {
        int clauses;
        final List<MultiTermQuery> multiTerm = new ArrayList<>();
        /** Each phrase once: a multi-phrase hands its terms over one position at a time. */
        final Set<Query> phrases = Collections.newSetFromMap(new IdentityHashMap<>());

        @Override
        public QueryVisitor getSubVisitor(BooleanClause.Occur occur, Query parent) {
            return this;
        }

        @Override
        public void consumeTerms(Query query, Term... terms) {
            clauses++;
            if (query instanceof PhraseQuery || query instanceof MultiPhraseQuery) {
                phrases.add(query);
            }
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
