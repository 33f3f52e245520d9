package io.hedgerow.leaf.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.StoredField;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteOutcome;
import io.hedgerow.common.wire.proto.WriteResult;
import io.hedgerow.leaf.index.DocumentMapper;
import io.hedgerow.leaf.index.FieldSpec;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.leaf.search.IndexContext;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write op carries a multi-valued field as one {@link StoredField} per value under the field's
 * name; an op logged before arrays were carried (each name once) still maps to the same document,
 * and both replay from the log after a crash into documents with the offline build's points, doc
 * values and stored values.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MultiValuedReplayTest {
    @TempDir
    Path dir;

    private static IndexConfig config() {
        Map<String, FieldSpec> fields = new LinkedHashMap<>();
        fields.put("title", FieldSpec.text(true, true));
        fields.put("tags", FieldSpec.keyword(true));
        fields.put("n", FieldSpec.of(FieldSpec.Type.LONG, true));
        return new IndexConfig("standard", fields, IndexConfig.UnknownFields.REJECT, List.of("title"), null);
    }

    /** An op as the root wrote it before arrays: each field once. */
    private static WriteOp oldStyle() {
        return WriteOp.newBuilder().setKind(WriteKind.UPSERT).setId("old")
                .addFields(field("title", "alpha old"))
                .addFields(field("tags", "red"))
                .addFields(field("n", "5")).build();
    }

    private static WriteOp multiValued() {
        return WriteOp.newBuilder().setKind(WriteKind.UPSERT).setId("new")
                .addFields(field("title", "alpha new"))
                .addFields(field("tags", "red"))
                .addFields(field("n", "9"))
                .addFields(field("tags", "blue"))
                .addFields(field("n", "1")).build();
    }

    private static StoredField field(String name, String value) {
        return StoredField.newBuilder().setName(name).setValue(value).build();
    }

    @Test
    void opsMapToTheDocumentsTheOfflineBuildMakes() {
        DocumentMapper mapper = new DocumentMapper(config());
        assertThat(OpChecks.fieldsOf(oldStyle())).as("an old op reads as before: one string per field")
                .isEqualTo(Map.of("title", "alpha old", "tags", "red", "n", "5"));
        Map<String, Object> source = new LinkedHashMap<>();
        source.put("title", "alpha new");
        source.put("tags", List.of("red", "blue"));
        source.put("n", List.of("9", "1"));
        assertThat(OpChecks.fieldsOf(multiValued())).isEqualTo(source);
        assertThat(describe(mapper.toDocument("new", OpChecks.fieldsOf(multiValued())).getFields()))
                .isEqualTo(describe(mapper.toDocument("new", source).getFields()));
    }

    @Test
    void oldAndMultiValuedOpsReplayFromTheLogAfterACrash() throws IOException {
        IndexContext index = build();
        CrashableDisk disk = new CrashableDisk();
        Path liveDir = dir.resolve("live/partition-0000");
        LivePartition live = LivePartition.open(index, 0, liveDir,
                index.store().partitionDir(index.manifest(), 0), searcher -> { }, disk);
        List<WriteResult> written = live.write(List.of(oldStyle(), multiValued()), true);
        assertThat(written).extracting(WriteResult::getOutcome).containsExactly(WriteOutcome.CREATED, WriteOutcome.CREATED);
        disk.crash();
        live.closeWithoutCommit();

        LivePartition recovered = LivePartition.open(index, 0, liveDir,
                index.store().partitionDir(index.manifest(), 0), searcher -> { }, disk);
        try {
            assertThat(recovered.lastSeq()).isEqualTo(2);
            assertThat(recovered.get("old").getFieldsList()).containsExactlyElementsOf(oldStyle().getFieldsList());
            assertThat(recovered.get("new").getFieldsList()).extracting(f -> f.getName() + "=" + f.getValue())
                    .containsExactly("title=alpha new", "tags=red", "tags=blue", "n=9", "n=1");
            recovered.commit();
        } finally {
            recovered.close();
        }

        try (FSDirectory directory = FSDirectory.open(liveDir.resolve(LivePartition.INDEX_DIR));
             DirectoryReader reader = DirectoryReader.open(directory)) {
            IndexSearcher searcher = new IndexSearcher(reader);
            assertThat(ids(searcher, new TermQuery(new Term("tags", "red")))).containsExactlyInAnyOrder("old", "new");
            assertThat(ids(searcher, new TermQuery(new Term("tags", "blue")))).containsExactly("new");
            assertThat(ids(searcher, LongPoint.newExactQuery("n", 1))).containsExactly("new");
            assertThat(ids(searcher, LongPoint.newExactQuery("n", 5))).containsExactly("old");
            assertThat(docValues(reader, "old")).isEqualTo("tags=[red] n=[5]");
            assertThat(docValues(reader, "new")).isEqualTo("tags=[blue, red] n=[1, 9]");
        }
    }

    private IndexContext build() throws IOException {
        PartitionStore store = new PartitionStore(dir.resolve("index"));
        new IndexBuilder(IndexOptions.defaults().withPartitions(1), IndexProgress.none())
                .build(store, "replay", config(), List.of(new SourceDocument("built-0", Map.of("title", "built"), 1)));
        return IndexContext.of(store, store.readManifest());
    }

    private static List<String> ids(IndexSearcher searcher, org.apache.lucene.search.Query query) throws IOException {
        List<String> ids = new ArrayList<>();
        StoredFields stored = searcher.storedFields();
        for (ScoreDoc hit : searcher.search(query, 10).scoreDocs) {
            ids.add(stored.document(hit.doc).get(IndexConfig.ID_FIELD));
        }
        return ids;
    }

    /** The document's sorted-set and sorted-numeric doc values, as the offline build writes them. */
    private static String docValues(DirectoryReader reader, String id) throws IOException {
        IndexSearcher searcher = new IndexSearcher(reader);
        ScoreDoc hit = searcher.search(new TermQuery(new Term(IndexConfig.ID_FIELD, id)), 1).scoreDocs[0];
        int leafIndex = org.apache.lucene.index.ReaderUtil.subIndex(hit.doc, reader.leaves());
        LeafReader leaf = reader.leaves().get(leafIndex).reader();
        int doc = hit.doc - reader.leaves().get(leafIndex).docBase;
        List<String> tags = new ArrayList<>();
        SortedSetDocValues set = leaf.getSortedSetDocValues("tags");
        if (set.advanceExact(doc)) {
            for (int i = 0; i < set.docValueCount(); i++) {
                tags.add(set.lookupOrd(set.nextOrd()).utf8ToString());
            }
        }
        List<Long> numbers = new ArrayList<>();
        SortedNumericDocValues n = leaf.getSortedNumericDocValues("n");
        if (n.advanceExact(doc)) {
            for (int i = 0; i < n.docValueCount(); i++) {
                numbers.add(n.nextValue());
            }
        }
        return "tags=" + tags + " n=" + numbers;
    }

    private static List<String> describe(List<IndexableField> fields) {
        return fields.stream().map(f -> f.getClass().getSimpleName() + " " + f).toList();
    }
}
