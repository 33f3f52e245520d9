package io.hedgerow.leaf.search;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.lucene.index.FilterLeafReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.TermStates;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.ConstantScoreQuery;
import org.apache.lucene.search.DisjunctionMaxQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MultiPhraseQuery;
import org.apache.lucene.search.MultiTermQuery;
import org.apache.lucene.search.PhraseQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.automaton.ByteRunAutomaton;

/**
 * What a query will cost on one partition, known as soon as its terms are: before it is rewritten
 * and before any weight or scorer is built, which is where an expensive query spends its set-up (a
 * broad prefix reads the postings of every term it matches into a doc-id set). It is one pass over
 * the term dictionary: a document-frequency lookup per term, and an enumeration of the terms each
 * wildcard, prefix, fuzzy, regexp or range part matches.
 *
 * <p>The same pass enforces the expansion budget of {@link QueryLimits}, summed over the whole
 * query: the terms matched by each part ({@code --max-expansions}) and by all of them
 * ({@code --max-expansions-total}), their postings ({@code --max-expansion-postings}), and the terms
 * the enumeration visits to find them, matching or not ({@code --max-terms-visited}, which stops a
 * pattern like {@code /a.*zzzz/} that matches nothing but scans every term starting with {@code a}).
 * Each count stops the enumeration one past its limit, so refusing costs at most what the limits
 * allow, and a refused query never reaches its set-up.
 *
 * <p>The estimate is an upper bound of the postings scoring reads: Lucene may skip documents that
 * cannot make the top k unless hits are counted exactly, and a conjunction stops at its rarest term.
 */
public final class QueryCostEstimator {
    /** A phrase reads each matching document's positions as well as its doc ids. */
    static final int PHRASE_POSITIONS_WEIGHT = 2;
    /** Slop a sloppy phrase's weight grows with, up to this (a long slop matches almost as a conjunction). */
    static final int MAX_WEIGHTED_SLOP = 32;

    private QueryCostEstimator() {
    }

    /**
     * A query ready to run, and what it will cost: the query is the parsed one with each of its
     * term queries given the {@link TermStates} the estimate looked up ({@code new TermQuery(term,
     * states)}), so setting it up does not look its terms up in the term dictionary again.
     *
     * @param query the query to run, on a searcher of the reader it was prepared on
     */
    public record Prepared(Query query, QueryCost cost) {
    }

    /**
     * What the query costs on the searcher's reader, with the query prepared to run there: one pass
     * over its terms serves both. Each distinct term is looked up once per segment ({@link
     * TermStates#build}), its statistics giving the estimate and its states the term query's setup
     * (the states hold on to nothing of the reader but its segments' term positions, and are valid
     * for searchers of this reader only, which Lucene checks: on another reader it looks the term up
     * itself). Terms of phrases and other queries are looked up for the estimate only: Lucene takes
     * no states from outside for them.
     *
     * @param partition for refusal messages
     * @throws BadQueryException naming the first expansion limit the query is over on this partition
     */
    public static Prepared prepare(Query query, IndexSearcher searcher, QueryLimits limits, int partition)
            throws IOException, BadQueryException {
        Collector collector = new Collector();
        query.visit(collector);
        IndexReader reader = searcher.getIndexReader();
        Map<Term, TermStates> states = new HashMap<>();
        long postings = 0;
        for (Weighted term : collector.terms) {
            TermStates termStates = states.get(term.term());
            if (termStates == null) {
                termStates = TermStates.build(searcher, term.term(), true);
                states.put(term.term(), termStates);
            }
            postings = saturatedAdd(postings, (long) termStates.docFreq() * term.weight());
        }
        postings = saturatedAdd(postings, (long) collector.wholePartition * reader.maxDoc());
        Budget budget = new Budget(limits, partition);
        for (MultiTermQuery expanding : collector.multiTerm) {
            budget.enumerate(expanding, reader);
        }
        QueryCost cost = QueryCost.of(saturatedAdd(postings, budget.postings), budget.expandedTotal, budget.visited);
        return new Prepared(withTermStates(query, states), cost);
    }

    /**
     * What the query costs on {@code reader} (see {@link #prepare}, of which this is the estimate only).
     *
     * @param partition for refusal messages
     * @throws BadQueryException naming the first expansion limit the query is over on this partition
     */
    public static QueryCost estimate(Query query, IndexReader reader, QueryLimits limits, int partition)
            throws IOException, BadQueryException {
        return prepare(query, new IndexSearcher(reader), limits, partition).cost();
    }

    /**
     * The query with each term query in it (through boolean, boost, disjunction-max and
     * constant-score wrappers) carrying its term's states; the same object where nothing changed.
     */
    static Query withTermStates(Query query, Map<Term, TermStates> states) {
        return switch (query) {
            case TermQuery term when term.getTermStates() == null && states.containsKey(term.getTerm()) ->
                    new TermQuery(term.getTerm(), states.get(term.getTerm()));
            case BoostQuery boost -> {
                Query inner = withTermStates(boost.getQuery(), states);
                yield inner == boost.getQuery() ? boost : new BoostQuery(inner, boost.getBoost());
            }
            case ConstantScoreQuery constant -> {
                Query inner = withTermStates(constant.getQuery(), states);
                yield inner == constant.getQuery() ? constant : new ConstantScoreQuery(inner);
            }
            case DisjunctionMaxQuery max -> {
                List<Query> disjuncts = new ArrayList<>();
                boolean changed = false;
                for (Query disjunct : max.getDisjuncts()) {
                    Query prepared = withTermStates(disjunct, states);
                    changed |= prepared != disjunct;
                    disjuncts.add(prepared);
                }
                yield changed ? new DisjunctionMaxQuery(disjuncts, max.getTieBreakerMultiplier()) : max;
            }
            case BooleanQuery bool -> {
                BooleanQuery.Builder builder = new BooleanQuery.Builder()
                        .setMinimumNumberShouldMatch(bool.getMinimumNumberShouldMatch());
                boolean changed = false;
                for (BooleanClause clause : bool.clauses()) {
                    Query prepared = withTermStates(clause.query(), states);
                    changed |= prepared != clause.query();
                    builder.add(prepared, clause.occur());
                }
                yield changed ? builder.build() : bool;
            }
            default -> query;
        };
    }

    /** How much a phrase's postings weigh: positions are read, and a loose phrase tries many alignments. */
    static int phraseWeight(int slop) {
        return PHRASE_POSITIONS_WEIGHT * (1 + Math.min(slop, MAX_WEIGHTED_SLOP) / 4);
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    private record Weighted(Term term, int weight) {
    }

    /** The terms of the query with their weights, its expanding parts, and the parts that match everything. */
    private static final class Collector extends QueryVisitor {
        final List<Weighted> terms = new ArrayList<>();
        final List<MultiTermQuery> multiTerm = new ArrayList<>();
        int wholePartition;

        @Override
        public QueryVisitor getSubVisitor(BooleanClause.Occur occur, Query parent) {
            return this;
        }

        @Override
        public void consumeTerms(Query query, Term... queryTerms) {
            int weight = switch (query) {
                case PhraseQuery phrase -> phraseWeight(phrase.getSlop());
                case MultiPhraseQuery phrase -> phraseWeight(phrase.getSlop());
                default -> 1;
            };
            for (Term term : queryTerms) {
                terms.add(new Weighted(term, weight));
            }
        }

        @Override
        public void consumeTermsMatching(Query query, String field, Supplier<ByteRunAutomaton> automaton) {
            if (query instanceof MultiTermQuery expanding) {
                multiTerm.add(expanding);
            } else {
                wholePartition++;
            }
        }

        @Override
        public void visitLeaf(Query query) {
            wholePartition++; // match-all, point ranges and the like: at most every document
        }
    }

    /** The expansion budget of one query on one partition, spent as its parts are enumerated. */
    private static final class Budget {
        private final QueryLimits limits;
        private final int partition;
        long expandedTotal;
        long postings;
        long visited;

        Budget(QueryLimits limits, int partition) {
            this.limits = limits;
            this.partition = partition;
        }

        void enumerate(MultiTermQuery expanding, IndexReader reader) throws IOException, BadQueryException {
            Terms terms = MultiTerms.getTerms(reader, expanding.getField());
            if (terms == null) {
                return;
            }
            int matched = 0;
            try {
                // Every term the enumeration reads goes through the counting wrapper: Terms.intersect,
                // not overridden there, drives automata over its iterator rather than the codec's own.
                TermsEnum matching = expanding.getTermsEnum(new CountingTerms(terms, this));
                while (matching.next() != null) {
                    if (++matched > limits.maxExpansions()) {
                        throw refusal("'" + expanding + "' matches more than " + limits.maxExpansions() + " terms",
                                limits.maxExpansions(), "--max-expansions");
                    }
                    if (++expandedTotal > limits.maxExpansionsTotal()) {
                        throw refusal("the query's wildcard, prefix, fuzzy, regexp and range terms match more than "
                                + limits.maxExpansionsTotal() + " terms together", limits.maxExpansionsTotal(),
                                "--max-expansions-total");
                    }
                    postings = saturatedAdd(postings, matching.docFreq());
                    if (postings > limits.maxExpansionPostings()) {
                        throw refusal("the terms the query's wildcard, prefix, fuzzy, regexp and range parts match"
                                + " have more than " + limits.maxExpansionPostings() + " postings",
                                limits.maxExpansionPostings(), "--max-expansion-postings");
                    }
                }
            } catch (VisitedTooMany e) {
                throw refusal("finding the terms of '" + expanding + "' visits more than " + limits.maxTermsVisited()
                        + " terms", limits.maxTermsVisited(), "--max-terms-visited");
            }
        }

        /** Counts one term read by an enumeration; stops it one past the limit. */
        void visit() {
            if (++visited > limits.maxTermsVisited()) {
                throw VisitedTooMany.INSTANCE;
            }
        }

        private BadQueryException refusal(String what, long limit, String flag) {
            return new BadQueryException(what + " in partition " + partition + " (expected: <= " + limit
                    + ", the leaf's " + flag + ")", null);
        }
    }

    /** Thrown from inside an enumeration to stop it; carries nothing. */
    private static final class VisitedTooMany extends RuntimeException {
        static final VisitedTooMany INSTANCE = new VisitedTooMany();

        private VisitedTooMany() {
            super("terms visited past the limit", null, false, false);
        }
    }

    /** A field's terms whose enumerations count every term they read against the budget. */
    private static final class CountingTerms extends FilterLeafReader.FilterTerms {
        private final Budget budget;

        CountingTerms(Terms in, Budget budget) {
            super(in);
            this.budget = budget;
        }

        @Override
        public TermsEnum iterator() throws IOException {
            return new FilterLeafReader.FilterTermsEnum(in.iterator()) {
                @Override
                public BytesRef next() throws IOException {
                    budget.visit();
                    return in.next();
                }

                @Override
                public SeekStatus seekCeil(BytesRef text) throws IOException {
                    budget.visit();
                    return in.seekCeil(text);
                }

                @Override
                public boolean seekExact(BytesRef text) throws IOException {
                    budget.visit();
                    return in.seekExact(text);
                }
            };
        }
    }
}
