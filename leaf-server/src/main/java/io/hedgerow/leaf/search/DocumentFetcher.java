package io.hedgerow.leaf.search;

import io.hedgerow.common.wire.proto.FetchedDoc;
import io.hedgerow.common.wire.proto.HighlightFieldSpec;
import io.hedgerow.common.wire.proto.HighlightSpec;
import io.hedgerow.common.wire.proto.HighlightedField;
import io.hedgerow.common.wire.proto.StoredField;
import io.hedgerow.leaf.index.FieldSpec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.lucene.document.DocumentStoredFieldVisitor;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.uhighlight.LengthGoalBreakIterator;
import org.apache.lucene.search.uhighlight.UnifiedHighlighter;
import org.apache.lucene.util.automaton.ByteRunAutomaton;

/**
 * A partition's fetch phase: for the few hits that made the merged top k, their returned stored
 * fields, a snippet and the asked highlights, from one stored-fields read per document.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: its state is set once; each fetch builds its
 * own highlighters. The caller holds the reader open (see {@link PartitionSearcher#tryAcquire()}).
 */
final class DocumentFetcher {
    /** Aim for snippets of about this many characters: a sentence or two. */
    private static final int SNIPPET_LENGTH_GOAL = 160;

    private final int partition;
    private final IndexContext context;
    private final IndexReader reader;
    private final IndexSearcher searcher;
    /** How snippets are made; each fetch builds its own highlighter from it. Null: no snippet field. */
    private final UnifiedHighlighter.Builder highlighterSettings;

    DocumentFetcher(int partition, IndexContext context, IndexSearcher searcher) {
        this.partition = partition;
        this.context = context;
        this.reader = searcher.getIndexReader();
        this.searcher = searcher;
        this.highlighterSettings = context.snippetField() == null ? null
                : UnifiedHighlighter.builder(searcher, context.analyzer())
                        .withBreakIterator(() -> LengthGoalBreakIterator.createClosestToLength(
                                new SentenceEndBreakIterator(), SNIPPET_LENGTH_GOAL, 0.5f))
                        .withFormatter(new HtmlSnippetFormatter(" … "))
                        .withScorer(new HashlessPassageScorer());
    }

    /** See {@link PartitionSearcher#fetch(Query, int[], boolean, boolean, Collection, HighlightSpec)}. */
    List<FetchedDoc.Builder> fetch(Query query, int[] docs, boolean snippets, boolean storedFields,
            Collection<String> fields, HighlightSpec highlight) throws IOException {
        for (int doc : docs) {
            if (doc < -1 || doc >= reader.maxDoc()) {
                throw new IllegalArgumentException("doc: " + doc + " (expected: 0.." + (reader.maxDoc() - 1)
                        + " in partition " + partition + ", or -1)");
            }
        }
        String[] ids = IdLookup.idsOf(reader, partition, docs);
        boolean withSnippets = snippets && highlighterSettings != null;
        Set<String> returned = context.returnedFields();
        if (fields != null) {
            // Only the asked fields that the index returns: a stored-only field (a long body kept
            // for snippets) stays as private as without a list.
            returned = new HashSet<>(fields);
            returned.retainAll(context.returnedFields());
        }
        boolean withFields = storedFields && !returned.isEmpty();
        Set<String> toLoad = new HashSet<>();
        if (withFields) {
            toLoad.addAll(returned);
        }
        if (withSnippets) {
            toLoad.add(context.snippetField());
        }
        Map<String, String[]> highlightSources = null;
        if (highlight != null) {
            highlightSources = new HashMap<>();
            for (HighlightFieldSpec field : highlight.getFieldsList()) {
                highlightSources.put(field.getField(), new String[docs.length]);
                toLoad.add(field.getField());
            }
        }
        // One stored-fields read per document, for the fields it returns, its snippet's and its highlights' text.
        StoredFields stored = reader.storedFields();
        String[] snippetSources = withSnippets ? new String[docs.length] : null;
        List<FetchedDoc.Builder> fetched = new ArrayList<>(docs.length);
        for (int i = 0; i < docs.length; i++) {
            FetchedDoc.Builder doc = FetchedDoc.newBuilder().setPartition(partition).setDoc(docs[i]);
            if (docs[i] < 0) {
                fetched.add(doc);
                continue;
            }
            doc.setId(ids[i]);
            if (!toLoad.isEmpty()) {
                DocumentStoredFieldVisitor visitor = new DocumentStoredFieldVisitor(toLoad);
                stored.document(docs[i], visitor);
                for (IndexableField field : visitor.getDocument().getFields()) {
                    String value = field.stringValue();
                    if (value == null) {
                        continue;
                    }
                    String[] highlightSource = highlightSources == null ? null : highlightSources.get(field.name());
                    if (highlightSource != null) {
                        highlightSource[i] = joined(highlightSource[i], value);
                    }
                    if (withSnippets && field.name().equals(context.snippetField())) {
                        snippetSources[i] = joined(snippetSources[i], value);
                    }
                    if (withFields && returned.contains(field.name())) {
                        doc.addFields(StoredField.newBuilder().setName(field.name()).setValue(value));
                    }
                }
            }
            fetched.add(doc);
        }
        if (withSnippets || highlight != null) {
            // Only the documents found: the highlighters want real doc ids.
            int[] positions = java.util.stream.IntStream.range(0, docs.length).filter(i -> docs[i] >= 0).toArray();
            if (positions.length > 0) {
                int[] found = new int[positions.length];
                for (int j = 0; j < positions.length; j++) {
                    found[j] = docs[positions[j]];
                }
                if (withSnippets) {
                    snippets(query, positions, found, snippetSources, fetched);
                }
                if (highlight != null) {
                    highlight(query, positions, found, highlight, highlightSources, fetched);
                }
            }
        }
        return fetched;
    }

    /** The values of a multi-valued field joined as the highlighter joins them. */
    private static String joined(String before, String value) {
        return before == null ? value : before + SnippetHighlighter.VALUE_SEPARATOR + value;
    }

    /** Each text at {@code positions}, in their order. */
    private static String[] at(int[] positions, String[] texts) {
        String[] picked = new String[positions.length];
        for (int j = 0; j < positions.length; j++) {
            picked[j] = texts[positions[j]];
        }
        return picked;
    }

    /** The fields whose terms {@code query} matches. */
    private static Set<String> fieldsOf(Query query) {
        Set<String> fields = new HashSet<>();
        query.visit(new QueryVisitor() {
            @Override
            public void consumeTerms(Query leaf, Term... terms) {
                for (Term term : terms) {
                    fields.add(term.field());
                }
            }

            @Override
            public void consumeTermsMatching(Query leaf, String field,
                    Supplier<ByteRunAutomaton> automaton) {
                fields.add(field);
            }
        });
        return fields;
    }

    /**
     * The field to highlight {@code field}'s text as in each found document: its per-language copy
     * ({@code body.de}) when the query searched that copy instead of the field (a search with
     * {@code lang}), so the words the search matched are marked, stemmed forms included; else the
     * field itself. A search in several languages names several copies: each document is highlighted
     * as the copy of its own language (its language field's doc value), the one it was found by. The
     * copy has no offsets in its postings, so the highlighter analyses the text again with the
     * copy's analyzer.
     */
    private String[] highlightedAs(String field, Set<String> queryFields, int[] found) throws IOException {
        String[] as = new String[found.length];
        Arrays.fill(as, field);
        FieldSpec spec = context.manifest().config().specOf(field);
        if (spec == null || spec.languageField() == null || queryFields.contains(field)) {
            return as; // no copies, or the field itself searched
        }
        String copyPrefix = field + '.';
        List<String> copies = new ArrayList<>();
        for (String searched : queryFields) {
            if (searched.startsWith(copyPrefix) && context.manifest().config().isLanguageCopy(searched)) {
                copies.add(searched);
            }
        }
        if (copies.isEmpty()) {
            return as;
        }
        if (copies.size() == 1) {
            Arrays.fill(as, copies.get(0));
            return as;
        }
        Collections.sort(copies);
        // In doc id order, so each segment's doc values are opened once and only move forward.
        int[] byDoc = java.util.stream.IntStream.range(0, found.length).boxed()
                .sorted(Comparator.comparingInt(j -> found[j])).mapToInt(Integer::intValue).toArray();
        List<LeafReaderContext> leaves = reader.leaves();
        LeafReaderContext leaf = null;
        SortedSetDocValues languages = null;
        int previousDoc = -1;
        String previousCopy = null;
        for (int j : byDoc) {
            if (found[j] == previousDoc) { // the same document twice: its values are already read
                as[j] = previousCopy;
                continue;
            }
            if (leaf == null || found[j] >= leaf.docBase + leaf.reader().maxDoc()) {
                leaf = leaves.get(ReaderUtil.subIndex(found[j], leaves));
                languages = DocValues.getSortedSet(leaf.reader(), spec.languageField());
            }
            String copy = null;
            if (languages.advanceExact(found[j] - leaf.docBase)) {
                copy = copyPrefix + languages.lookupOrd(languages.nextOrd()).utf8ToString();
            }
            as[j] = copy != null && copies.contains(copy) ? copy : copies.get(0);
            previousDoc = found[j];
            previousCopy = as[j];
        }
        return as;
    }

    /** The indexes of {@code as} grouped by their value, each group in order. */
    private static Map<String, int[]> groups(String[] as) {
        Map<String, List<Integer>> byValue = new java.util.LinkedHashMap<>();
        for (int j = 0; j < as.length; j++) {
            byValue.computeIfAbsent(as[j], key -> new ArrayList<>()).add(j);
        }
        Map<String, int[]> groups = new java.util.LinkedHashMap<>();
        byValue.forEach((value, indexes) -> groups.put(value, indexes.stream().mapToInt(Integer::intValue).toArray()));
        return groups;
    }

    /** {@code values} at {@code indexes}. */
    private static int[] pick(int[] values, int[] indexes) {
        int[] picked = new int[indexes.length];
        for (int i = 0; i < indexes.length; i++) {
            picked[i] = values[indexes[i]];
        }
        return picked;
    }

    /** Sets the snippet of each found document: {@code found[j]} is the document at {@code positions[j]}. */
    private void snippets(Query query, int[] positions, int[] found, String[] sources, List<FetchedDoc.Builder> fetched)
            throws IOException {
        String[] as = highlightedAs(context.snippetField(), fieldsOf(query), found);
        if (allSame(as)) {
            // Every document as one field: always so unless the search names several languages
            // (found is never empty: fetch calls this only with documents found).
            snippetsAs(as[0], query, positions, found, sources, fetched);
            return;
        }
        for (Map.Entry<String, int[]> group : groups(as).entrySet()) {
            snippetsAs(group.getKey(), query, pick(positions, group.getValue()), pick(found, group.getValue()),
                    sources, fetched);
        }
    }

    /** The snippets of documents all highlighted as {@code field}. */
    private void snippetsAs(String field, Query query, int[] positions, int[] found, String[] sources,
            List<FetchedDoc.Builder> fetched) throws IOException {
        String[] snippetTexts = new SnippetHighlighter(highlighterSettings, query, found,
                Map.of(field, at(positions, sources)))
                .highlightFields(new String[] {field}, query, found, new int[] {1})
                .get(field);
        for (int j = 0; j < positions.length; j++) {
            if (snippetTexts[j] != null) {
                // Passages run from one sentence's start to the next's, so edges can be blank.
                fetched.get(positions[j]).setSnippet(snippetTexts[j].strip());
            }
        }
    }

    private static boolean allSame(String[] values) {
        for (String value : values) {
            if (!value.equals(values[0])) {
                return false;
            }
        }
        return true;
    }

    /** Adds each found document's fragments, field by field in the order asked. */
    private void highlight(Query query, int[] positions, int[] found, HighlightSpec spec, Map<String, String[]> sources,
            List<FetchedDoc.Builder> fetched) throws IOException {
        // Documents highlighted as the same copies (one language's, in a search in several) go together.
        Set<String> queryFields = fieldsOf(query);
        Map<String, String[]> asByField = new HashMap<>();
        String[] key = new String[found.length];
        Arrays.fill(key, "");
        for (HighlightFieldSpec field : spec.getFieldsList()) {
            String[] as = highlightedAs(field.getField(), queryFields, found);
            asByField.put(field.getField(), as);
            for (int j = 0; j < found.length; j++) {
                key[j] += as[j] + '\u0000';
            }
        }
        for (int[] group : groups(key).values()) {
            Map<String, String> highlightedAs = new HashMap<>();
            asByField.forEach((field, as) -> highlightedAs.put(field, as[group[0]]));
            highlightGroup(query, pick(positions, group), pick(found, group), spec, highlightedAs, sources, fetched);
        }
    }

    /** {@link #highlight} of documents whose fields are each highlighted as {@code highlightedAs} says. */
    private void highlightGroup(Query query, int[] positions, int[] found, HighlightSpec spec,
            Map<String, String> highlightedAs, Map<String, String[]> sources, List<FetchedDoc.Builder> fetched)
            throws IOException {
        HighlightSpec.Builder renamed = spec.toBuilder().clearFields();
        for (HighlightFieldSpec field : spec.getFieldsList()) {
            renamed.addFields(field.toBuilder().setField(highlightedAs.get(field.getField())));
        }
        Map<String, String[]> texts = new HashMap<>();
        for (Map.Entry<String, String[]> field : sources.entrySet()) {
            texts.put(highlightedAs.get(field.getKey()), at(positions, field.getValue()));
        }
        UnifiedHighlighter.Builder settings = UnifiedHighlighter.builder(searcher, context.analyzer())
                .withScorer(new HashlessPassageScorer());
        Map<String, String[][]> fragments = new FieldHighlighter(settings, renamed.build(), query, found, texts).highlight();
        for (int j = 0; j < positions.length; j++) {
            FetchedDoc.Builder doc = fetched.get(positions[j]);
            for (HighlightFieldSpec field : spec.getFieldsList()) {
                String[][] perDoc = fragments.get(highlightedAs.get(field.getField()));
                String[] ofDoc = perDoc == null ? null : perDoc[j];
                if (ofDoc != null && ofDoc.length > 0) {
                    doc.addHighlight(HighlightedField.newBuilder().setField(field.getField())
                            .addAllFragments(Arrays.asList(ofDoc)));
                }
            }
        }
    }
}
