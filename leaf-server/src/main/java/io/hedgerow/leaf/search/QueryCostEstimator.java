package io.hedgerow.leaf.search;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.lucene.index.FilterLeafReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.MultiPhraseQuery;
import org.apache.lucene.search.MultiTermQuery;
import org.apache.lucene.search.PhraseQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
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
     * @param partition for refusal messages
     * @throws BadQueryException naming the first expansion limit the query is over on this partition
     */
    public static QueryCost estimate(Query query, IndexReader reader, QueryLimits limits, int partition)
            throws IOException, BadQueryException {
        Collector collector = new Collector();
        query.visit(collector);
        long postings = 0;
        for (Weighted term : collector.terms) {
            postings = saturatedAdd(postings, (long) reader.docFreq(term.term()) * term.weight());
        }
        postings = saturatedAdd(postings, (long) collector.wholePartition * reader.maxDoc());
        Budget budget = new Budget(limits, partition);
        for (MultiTermQuery expanding : collector.multiTerm) {
            budget.enumerate(expanding, reader);
        }
        return QueryCost.of(saturatedAdd(postings, budget.postings), budget.expandedTotal, budget.visited);
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
