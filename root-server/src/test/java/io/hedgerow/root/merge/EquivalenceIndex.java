package io.hedgerow.root.merge;

import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.leaf.index.Analyzers;
import io.hedgerow.leaf.index.DocumentMapper;
import io.hedgerow.leaf.index.FieldSpec;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.leaf.search.BadQueryException;
import io.hedgerow.leaf.search.IndexContext;
import io.hedgerow.leaf.search.PartitionSearcher;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;

/**
 * The fixture of the equivalence tests: the same documents as real partitions (the leaf's own
 * index build and searcher of each) and as one plain Lucene index to compare against.
 */
public final class EquivalenceIndex implements AutoCloseable {
    final IndexConfig config;
    final List<PartitionSearcher> partitions;
    /** The one index over every document. */
    final DirectoryReader reader;
    final IndexSearcher reference;
    private final Directory one;

    private EquivalenceIndex(IndexConfig config, List<PartitionSearcher> partitions, Directory one, DirectoryReader reader) {
        this.config = config;
        this.partitions = partitions;
        this.one = one;
        this.reader = reader;
        this.reference = new IndexSearcher(reader);
    }

    /** A text title; a keyword cat; price (double), qty (long), day (date) and flag (boolean) with doc values. */
    public static IndexConfig config() {
        Map<String, FieldSpec> fields = new LinkedHashMap<>();
        fields.put("title", FieldSpec.text(true, true));
        fields.put("cat", FieldSpec.keyword(true));
        fields.put("price", FieldSpec.of(FieldSpec.Type.DOUBLE, true));
        fields.put("qty", FieldSpec.of(FieldSpec.Type.LONG, true));
        fields.put("day", FieldSpec.of(FieldSpec.Type.DATE, true));
        fields.put("flag", FieldSpec.of(FieldSpec.Type.BOOLEAN, true));
        return new IndexConfig("standard", fields, IndexConfig.UnknownFields.REJECT, List.of("title"), null);
    }

    /** {@code docs} under {@link #config()} in {@code partitions} partitions under {@code dir}, and in one index. */
    static EquivalenceIndex build(Path dir, List<SourceDocument> docs, int partitions) throws IOException {
        IndexConfig config = config();
        PartitionStore store = new PartitionStore(dir.resolve("index"));
        new IndexBuilder(IndexOptions.defaults().withPartitions(partitions), IndexProgress.none())
                .build(store, "index", config, docs);
        IndexContext context = IndexContext.of(store, store.readManifest());
        List<PartitionSearcher> searchers = new ArrayList<>();
        Directory one = new ByteBuffersDirectory();
        try {
            for (int p = 0; p < partitions; p++) {
                searchers.add(PartitionSearcher.open(context, p));
            }
            DocumentMapper mapper = new DocumentMapper(config);
            try (IndexWriter writer = new IndexWriter(one, new IndexWriterConfig(Analyzers.forConfig(config)))) {
                for (SourceDocument doc : docs) {
                    writer.addDocument(mapper.toDocument(doc.id(), doc.fields()));
                }
            }
            return new EquivalenceIndex(config, searchers, one, DirectoryReader.open(one));
        } catch (IOException | RuntimeException e) {
            for (PartitionSearcher searcher : searchers) {
                searcher.close();
            }
            one.close();
            throw e;
        }
    }

    /** Every partition's answer to {@code wire}, each from its own search, by partition. */
    SearchResponse[] searchAll(SearchRequest wire) throws IOException, BadQueryException {
        SearchResponse[] answers = new SearchResponse[partitions.size()];
        for (int p = 0; p < partitions.size(); p++) {
            PartitionSearcher partition = partitions.get(p);
            answers[p] = partition.search(partition.queryOf(wire), wire, null).build();
        }
        return answers;
    }

    @Override
    public void close() throws IOException {
        for (PartitionSearcher partition : partitions) {
            partition.close();
        }
        reader.close();
        one.close();
    }
}
