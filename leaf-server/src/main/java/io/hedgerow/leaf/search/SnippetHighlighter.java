package io.hedgerow.leaf.search;

import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.uhighlight.UnifiedHighlighter;
import org.apache.lucene.util.automaton.ByteRunAutomaton;

/**
 * A {@link UnifiedHighlighter} for one fetch, given the text of its documents' fields (the snippet
 * field's; a {@link FieldHighlighter}'s asked fields) instead of loading it again: the fetch has
 * already read each document's stored fields once, and a second read of the same document would
 * cost as much again.
 *
 * <p>A query of single terms is highlighted from each term's postings, not by Lucene's default,
 * the query's {@code Matches}: those rewrite the query and build its weight again for every
 * document, which cost about as much as the rest of a snippet. The tags are the same (every
 * occurrence of a term the query looks for in the field); passages are ranked with each term's
 * frequency in the document where matches count every term once. A query with phrases, spans or
 * patterns keeps the matches, which tag a phrase as one span and only where it matches.
 *
 * <p>Not thread-safe; made per fetch from the partition's shared, never modified builder.
 */
sealed class SnippetHighlighter extends UnifiedHighlighter permits FieldHighlighter {
    /** What the highlighter puts between the values of a multi-valued field. */
    static final char VALUE_SEPARATOR = MULTIVAL_SEP_CHAR;

    private final int[] docs;
    private final Map<String, String[]> texts;
    /** Whether to highlight from the query's matches (Lucene's default) rather than its terms' postings. */
    private final boolean weightMatches;

    /**
     * @param query the query whose matches to highlight (the one later given to highlight them)
     * @param docs  the documents to highlight
     * @param texts per field, the text of each of {@code docs} in the same order (null: none)
     */
    SnippetHighlighter(Builder builder, Query query, int[] docs, Map<String, String[]> texts) {
        super(builder);
        this.docs = docs;
        this.texts = texts;
        this.weightMatches = !matchesSingleTermsOnly(query);
    }

    @Override
    protected Set<HighlightFlag> getFlags(String field) {
        Set<HighlightFlag> flags = super.getFlags(field);
        if (weightMatches || !flags.contains(HighlightFlag.WEIGHT_MATCHES)) {
            return flags;
        }
        Set<HighlightFlag> withoutMatches = EnumSet.copyOf(flags);
        withoutMatches.remove(HighlightFlag.WEIGHT_MATCHES);
        return withoutMatches;
    }

    /**
     * Whether every clause of {@code query} that can match text is a {@link TermQuery} (prohibited
     * clauses aside: they are never highlighted): then its terms' postings give the same tags as its
     * matches.
     */
    static boolean matchesSingleTermsOnly(Query query) {
        boolean[] other = {false};
        query.visit(new QueryVisitor() {
            @Override
            public void consumeTerms(Query leaf, Term... terms) {
                if (!(leaf instanceof TermQuery)) {
                    other[0] = true; // a phrase, a synonym set, a span...
                }
            }

            @Override
            public void consumeTermsMatching(Query leaf, String field, Supplier<ByteRunAutomaton> automaton) {
                other[0] = true; // a prefix, a wildcard, a fuzzy term...
            }

            @Override
            public QueryVisitor getSubVisitor(BooleanClause.Occur occur, Query parent) {
                return occur == BooleanClause.Occur.MUST_NOT ? QueryVisitor.EMPTY_VISITOR : this;
            }
        });
        return !other[0];
    }

    @Override
    protected final List<CharSequence[]> loadFieldValues(String[] fields, DocIdSetIterator docIter,
            int cacheCharsThreshold) throws IOException {
        List<CharSequence[]> values = new ArrayList<>(docs.length);
        for (int doc = docIter.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = docIter.nextDoc()) {
            int position = positionOf(doc);
            CharSequence[] row = new CharSequence[fields.length];
            for (int f = 0; f < fields.length; f++) {
                String[] fieldTexts = texts.get(fields[f]);
                String text = fieldTexts == null ? null : fieldTexts[position];
                row[f] = text == null ? "" : text;
            }
            values.add(row);
        }
        return values;
    }

    private int positionOf(int doc) {
        for (int i = 0; i < docs.length; i++) {
            if (docs[i] == doc) {
                return i;
            }
        }
        throw new IllegalStateException("doc " + doc + " was not given to this highlighter");
    }
}
