package io.hedgerow.leaf.search;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.uhighlight.UnifiedHighlighter;

/**
 * A {@link UnifiedHighlighter} for one fetch, given the snippet field's text of its documents
 * instead of loading it again: the fetch has already read each document's stored fields once, and
 * a second read of the same document would cost as much again.
 *
 * <p>Not thread-safe; made per fetch from the partition's shared, never modified builder.
 */
final class SnippetHighlighter extends UnifiedHighlighter {
    /** What the highlighter puts between the values of a multi-valued field. */
    static final char VALUE_SEPARATOR = MULTIVAL_SEP_CHAR;

    private final int[] docs;
    private final String[] texts;

    /**
     * @param docs  the documents to highlight
     * @param texts the snippet field's text of each of {@code docs}, in the same order
     */
    SnippetHighlighter(Builder builder, int[] docs, String[] texts) {
        super(builder);
        this.docs = docs;
        this.texts = texts;
    }

    @Override
    protected List<CharSequence[]> loadFieldValues(String[] fields, DocIdSetIterator docIter, int cacheCharsThreshold)
            throws IOException {
        if (fields.length != 1) {
            throw new IllegalArgumentException("fields: " + fields.length + " (expected: the snippet field only)");
        }
        List<CharSequence[]> values = new ArrayList<>(docs.length);
        for (int doc = docIter.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = docIter.nextDoc()) {
            values.add(new CharSequence[] {textOf(doc)});
        }
        return values;
    }

    private String textOf(int doc) {
        for (int i = 0; i < docs.length; i++) {
            if (docs[i] == doc) {
                return texts[i] == null ? "" : texts[i];
            }
        }
        throw new IllegalStateException("doc " + doc + " was not given to this highlighter");
    }
}
