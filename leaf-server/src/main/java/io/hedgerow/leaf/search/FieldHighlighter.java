package io.hedgerow.leaf.search;

import io.hedgerow.common.wire.proto.HighlightFieldSpec;
import io.hedgerow.common.wire.proto.HighlightSpec;
import java.io.IOException;
import java.text.BreakIterator;
import java.util.HashMap;
import java.util.Map;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.uhighlight.LengthGoalBreakIterator;
import org.apache.lucene.search.uhighlight.Passage;
import org.apache.lucene.search.uhighlight.PassageFormatter;
import org.apache.lucene.search.uhighlight.WholeBreakIterator;

/**
 * Elasticsearch's {@code highlight} for one fetch: for each asked field, its passages as separate
 * fragments with the caller's tags around matches and the text between them HTML-escaped
 * ({@link HtmlSnippetFormatter}). Given the fields' text already read by the fetch ({@link
 * SnippetHighlighter}). A field without a match yields no fragment (Elasticsearch's
 * {@code no_match_size} 0).
 *
 * <p>Not thread-safe; made per fetch.
 */
final class FieldHighlighter extends SnippetHighlighter {
    private final Map<String, HighlightFieldSpec> specs = new HashMap<>();
    private final PassageFormatter fragments;
    private final int[] docs;
    private final Query query;

    /**
     * @param query the query whose matches to highlight
     * @param docs  the documents to highlight
     * @param texts per field, the text of each of {@code docs} in the same order (null: none)
     */
    FieldHighlighter(Builder builder, HighlightSpec spec, Query query, int[] docs, Map<String, String[]> texts) {
        super(builder, query, docs, texts);
        for (HighlightFieldSpec field : spec.getFieldsList()) {
            specs.put(field.getField(), field);
        }
        this.fragments = new FragmentsFormatter(new HtmlSnippetFormatter(spec.getPreTag(), spec.getPostTag(), ""));
        this.docs = docs;
        this.query = query;
    }

    /** Per field asked, the fragments of each of the documents (null where it has none), in order. */
    Map<String, String[][]> highlight() throws IOException {
        String[] fields = specs.keySet().toArray(new String[0]);
        int[] maxPassages = new int[fields.length];
        for (int i = 0; i < fields.length; i++) {
            int wanted = specs.get(fields[i]).getNumberOfFragments();
            maxPassages[i] = wanted == 0 ? 1 : wanted;
        }
        Map<String, Object[]> objects = highlightFieldsAsObjects(fields, query, docs, maxPassages);
        Map<String, String[][]> result = new HashMap<>();
        // highlightFieldsAsObjects answers in the order of the documents given.
        for (Map.Entry<String, Object[]> field : objects.entrySet()) {
            String[][] perDoc = new String[docs.length][];
            for (int i = 0; i < docs.length; i++) {
                perDoc[i] = (String[]) field.getValue()[i];
            }
            result.put(field.getKey(), perDoc);
        }
        return result;
    }

    @Override
    protected BreakIterator getBreakIterator(String field) {
        HighlightFieldSpec spec = specs.get(field);
        if (spec == null || spec.getNumberOfFragments() == 0) {
            return new WholeBreakIterator();
        }
        return LengthGoalBreakIterator.createClosestToLength(new SentenceEndBreakIterator(), spec.getFragmentSize(), 0.5f);
    }

    @Override
    protected PassageFormatter getFormatter(String field) {
        return fragments;
    }

    @Override
    protected int getMaxNoHighlightPassages(String field) {
        return 0;
    }

    /** Each passage as its own fragment, as Elasticsearch returns them. */
    private static final class FragmentsFormatter extends PassageFormatter {
        private final HtmlSnippetFormatter html;

        FragmentsFormatter(HtmlSnippetFormatter html) {
            this.html = html;
        }

        @Override
        public Object format(Passage[] passages, String content) {
            String[] out = new String[passages.length];
            for (int i = 0; i < passages.length; i++) {
                // Passages run from one sentence's start to the next's, so edges can be blank.
                out[i] = html.format(new Passage[] {passages[i]}, content).strip();
            }
            return out;
        }
    }
}
