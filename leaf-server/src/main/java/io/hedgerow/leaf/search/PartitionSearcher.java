package io.hedgerow.leaf.search;

import io.hedgerow.common.wire.proto.Hit;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.StoredField;
import io.hedgerow.leaf.index.IndexConfig;
import java.io.Closeable;
import java.io.IOException;
import java.text.BreakIterator;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.DocumentStoredFieldVisitor;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.QueryTimeout;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopScoreDocCollectorManager;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.search.uhighlight.DefaultPassageFormatter;
import org.apache.lucene.search.uhighlight.LengthGoalBreakIterator;
import org.apache.lucene.search.uhighlight.UnifiedHighlighter;
import org.apache.lucene.store.MMapDirectory;

/**
 * Searches one micro-partition: top k by score (ties by doc id), total hits up to a threshold,
 * stored fields and a highlighted snippet per hit.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe; any number of workers may search at once.
 * {@link #close()} may race with searches: a search first {@link #tryAcquire() acquires} the
 * reader and the reader closes only after the last search releases it.
 */
public final class PartitionSearcher implements Closeable {
    /** Aim for snippets of about this many characters: a sentence or two. */
    private static final int SNIPPET_LENGTH_GOAL = 160;

    private final int partition;
    private final IndexContext context;
    private final DirectoryReader reader;
    private final IndexSearcher sharedSearcher;
    private final UnifiedHighlighter highlighter;
    private final Set<String> fieldsToLoad;

    private PartitionSearcher(int partition, IndexContext context, DirectoryReader reader) {
        this.partition = partition;
        this.context = context;
        this.reader = reader;
        this.sharedSearcher = new IndexSearcher(reader);
        this.highlighter = context.snippetField() == null ? null
                : UnifiedHighlighter.builder(sharedSearcher, context.analyzer())
                        .withBreakIterator(() -> LengthGoalBreakIterator.createClosestToLength(
                                BreakIterator.getSentenceInstance(Locale.ROOT), SNIPPET_LENGTH_GOAL, 0.5f))
                        .withFormatter(new DefaultPassageFormatter("<b>", "</b>", " … ", false))
                        .build();
        Set<String> load = new HashSet<>(context.returnedFields());
        load.add(IndexConfig.ID_FIELD);
        this.fieldsToLoad = Set.copyOf(load);
    }

    /** Opens the partition's Lucene index read-only, memory-mapped. */
    public static PartitionSearcher open(IndexContext context, int partition) throws IOException {
        MMapDirectory directory = new MMapDirectory(context.store().partitionDir(partition));
        DirectoryReader reader;
        try {
            reader = DirectoryReader.open(directory);
        } catch (IOException | RuntimeException e) {
            directory.close();
            throw e;
        }
        // The reader does not own its directory: close the directory when the last user is gone.
        reader.getReaderCacheHelper().addClosedListener(key -> directory.close());
        return new PartitionSearcher(partition, context, reader);
    }

    public int partition() {
        return partition;
    }

    public long docCount() {
        return reader.numDocs();
    }

    public IndexContext context() {
        return context;
    }

    /** Pins the reader for one search; false when the partition is closing. */
    public boolean tryAcquire() {
        return reader.tryIncRef();
    }

    public void release() throws IOException {
        reader.decRef();
    }

    /**
     * Runs a parsed query. The caller holds an {@link #tryAcquire() acquired} reader.
     *
     * @param timeout polled while scoring; when it says to exit, the answer is what was found so
     *                far and is marked {@code cut_short}. Null means run to the end.
     */
    public SearchResponse.Builder search(Query query, SearchRequest request, QueryTimeout timeout) throws IOException {
        IndexSearcher searcher = sharedSearcher;
        if (timeout != null) {
            // The timeout is per searcher, and searchers are cheap views of the shared reader.
            searcher = new IndexSearcher(reader);
            searcher.setTimeout(timeout);
        }
        int threshold = request.getTotalHitsThreshold() > 0 ? request.getTotalHitsThreshold() : 1000;
        TopDocs top = searcher.search(query,
                new TopScoreDocCollectorManager(Math.max(1, request.getK()), null, threshold));

        SearchResponse.Builder response = SearchResponse.newBuilder()
                .setRequestId(request.getRequestId())
                .setPartition(partition)
                .setStatus(Status.OK)
                .setTotalHits(top.totalHits.value())
                .setTotalHitsExact(top.totalHits.relation() == TotalHits.Relation.EQUAL_TO)
                .setCutShort(timeout != null && searcher.timedOut());
        String[] snippets = request.getSnippets() && highlighter != null && top.scoreDocs.length > 0
                ? highlighter.highlight(context.snippetField(), query, top, 1)
                : null;
        var storedFields = sharedSearcher.storedFields();
        for (int i = 0; i < top.scoreDocs.length; i++) {
            ScoreDoc scoreDoc = top.scoreDocs[i];
            DocumentStoredFieldVisitor visitor = new DocumentStoredFieldVisitor(
                    request.getStoredFields() ? fieldsToLoad : Set.of(IndexConfig.ID_FIELD));
            storedFields.document(scoreDoc.doc, visitor);
            Document doc = visitor.getDocument();
            Hit.Builder hit = Hit.newBuilder()
                    .setId(doc.get(IndexConfig.ID_FIELD))
                    .setScore(scoreDoc.score)
                    .setDoc(scoreDoc.doc);
            for (IndexableField field : doc.getFields()) {
                if (!IndexConfig.ID_FIELD.equals(field.name()) && field.stringValue() != null) {
                    hit.addFields(StoredField.newBuilder().setName(field.name()).setValue(field.stringValue()));
                }
            }
            if (snippets != null && snippets[i] != null) {
                hit.setSnippet(snippets[i]);
            }
            response.addHits(hit);
        }
        return response;
    }

    @Override
    public void close() throws IOException {
        reader.decRef();
    }
}
