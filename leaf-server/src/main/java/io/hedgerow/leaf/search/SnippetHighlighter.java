package io.hedgerow.leaf.search;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.uhighlight.UnifiedHighlighter;

/**
 * A {@link UnifiedHighlighter} for one fetch, given the text of its documents' fields (the snippet
 * field's; a {@link FieldHighlighter}'s asked fields) instead of loading it again: the fetch has
 * already read each document's stored fields once, and a second read of the same document would
 * cost as much again.
 *
 * <p>Not thread-safe; made per fetch from the partition's shared, never modified builder.
 */
sealed class SnippetHighlighter extends UnifiedHighlighter permits FieldHighlighter {
    /** What the highlighter puts between the values of a multi-valued field. */
    static final char VALUE_SEPARATOR = MULTIVAL_SEP_CHAR;

    private final int[] docs;
    private final Map<String, String[]> texts;

    /**
     * @param docs  the documents to highlight
     * @param texts per field, the text of each of {@code docs} in the same order (null: none)
     */
    SnippetHighlighter(Builder builder, int[] docs, Map<String, String[]> texts) {
        super(builder);
        this.docs = docs;
        this.texts = texts;
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
