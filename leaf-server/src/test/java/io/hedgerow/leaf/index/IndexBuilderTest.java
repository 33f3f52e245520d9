package io.hedgerow.leaf.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.time.Ticker;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.util.Bits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IndexBuilderTest {
    /** Title and body text, a keyword colour, nothing else. */
    private static final IndexConfig CONFIG = new IndexConfig("standard",
            orderedMap("title", FieldSpec.text(true, true), "body", FieldSpec.text(true, false), "color", FieldSpec.keyword(true)),
            IndexConfig.UnknownFields.REJECT, null, "body");

    @TempDir
    Path tmp;

    @Test
    void manifestCountsSumToTheTotalAndMatchEachPartitionOnDisk() throws IOException {
        PartitionStore store = store("small");

        IndexSummary summary = builder(4).build(store, "small", CONFIG, docs(300));

        IndexManifest manifest = store.readManifest();
        assertThat(manifest.name()).isEqualTo("small");
        assertThat(manifest.partitions()).isEqualTo(4);
        assertThat(manifest.docCount()).isEqualTo(300);
        assertThat(manifest.partitionDocCounts()).hasSize(4).allMatch(count -> count > 0);
        assertThat(manifest.partitionDocCounts().stream().mapToLong(Long::longValue).sum()).isEqualTo(300);
        for (int p = 0; p < 4; p++) {
            try (Directory dir = new MMapDirectory(store.partitionDir(p)); DirectoryReader reader = DirectoryReader.open(dir)) {
                assertThat((long) reader.numDocs()).as("partition %d", p).isEqualTo(manifest.partitionDocCounts().get(p));
            }
        }
        assertThat(manifest.config()).isEqualTo(CONFIG);
        assertThat(summary.docs()).isEqualTo(300);
        assertThat(summary.partitions()).isEqualTo(4);
        assertThat(summary.bytesOnDisk()).isPositive();
        assertThat(summary.badLinesSkipped()).isZero();
    }

    @Test
    void putsEveryDocumentInThePartitionItsIdHashesTo() throws IOException {
        PartitionStore store = store("small");
        builder(4).build(store, "small", CONFIG, docs(300));

        Partitioner partitioner = new Partitioner(4);
        List<String> all = new ArrayList<>();
        for (int p = 0; p < 4; p++) {
            for (String id : idsIn(store.partitionDir(p))) {
                assertThat(partitioner.partitionOf(id)).as("partition of %s", id).isEqualTo(p);
                all.add(id);
            }
        }
        assertThat(all).containsExactlyInAnyOrderElementsOf(IntStream.range(0, 300).mapToObj(i -> "doc-" + i).toList());
    }

    @Test
    void withARoutingKeyPutsEachValuesDocumentsInItsPartitionsAndRefusesADocumentWithoutOne() throws IOException {
        Routing routing = new Routing("color", 2);
        List<SourceDocument> docs = new ArrayList<>(docs(300));
        docs.add(new SourceDocument("colorless", orderedMap("title", "no colour", "body", "none"), 301));
        PartitionStore store = store("routed");
        IndexBuilder builder = new IndexBuilder(
                IndexOptions.defaults().withPartitions(8).withBadLines(BadLinePolicy.SKIP), IndexProgress.none());

        IndexSummary summary = builder.build(store, "routed", CONFIG.withRouting(routing), docs);

        Partitioner partitioner = Partitioner.of(store.readManifest());
        assertThat(partitioner.routing()).isEqualTo(routing);
        assertThat(summary.docs()).isEqualTo(300);
        assertThat(summary.firstBadLines()).singleElement().extracting(BadLine::reason)
                .isEqualTo("missing the routing field 'color' (the index is routed by it)");
        List<Integer> red = IntStream.of(partitioner.partitionsOf("red")).boxed().toList();
        List<Integer> blue = IntStream.of(partitioner.partitionsOf("blue")).boxed().toList();
        for (int p = 0; p < 8; p++) {
            for (String id : idsIn(store.partitionDir(p))) {
                int i = Integer.parseInt(id.substring("doc-".length()));
                String color = i % 3 == 0 ? "red" : "blue";
                assertThat(p).as("partition of %s (%s)", id, color).isIn(color.equals("red") ? red : blue)
                        .isEqualTo(partitioner.partitionOf(id, color));
            }
        }
    }

    @Test
    void replacesADocumentWhoseIdComesAgain() throws IOException {
        List<SourceDocument> docs = new ArrayList<>(docs(300));
        docs.add(new SourceDocument("doc-7", Map.of("title", "replacement", "body", "second version"), 301));
        PartitionStore store = store("upsert");

        IndexSummary summary = builder(4).build(store, "upsert", CONFIG, docs);

        assertThat(summary.docs()).isEqualTo(300);
        assertThat(summary.docsRead()).isEqualTo(301);
        assertThat(store.readManifest().docCount()).isEqualTo(300);
        List<String> hits = search(store.partitionDir(new Partitioner(4).partitionOf("doc-7")), new Term("id", "doc-7"), "title");
        assertThat(hits).containsExactly("replacement");
    }

    @Test
    void findsAKnownDocumentWithATermQuery() throws IOException {
        PartitionStore store = store("small");
        builder(4).build(store, "small", CONFIG, docs(300));
        Path partition = store.partitionDir(new Partitioner(4).partitionOf("doc-123"));

        assertThat(search(partition, new Term("body", "marker123"), "id")).containsExactly("doc-123");
        assertThat(search(partition, new Term("title", "123"), "id")).containsExactly("doc-123");
        List<String> redInPartition = idsIn(partition).stream()
                .filter(id -> Integer.parseInt(id.substring("doc-".length())) % 3 == 0)
                .toList();
        assertThat(search(partition, new Term("color", "red"), "id"))
                .contains("doc-123")
                .containsExactlyInAnyOrderElementsOf(redInPartition);
    }

    @Test
    void recordsTheIndexedFieldsInFirstSeenOrderLeavingOutIgnoredOnes() throws IOException {
        List<SourceDocument> docs = List.of(
                new SourceDocument("1", orderedMap("zeta", "x", "alpha", "y"), 1),
                new SourceDocument("2", orderedMap("beta", "x", "zeta", "y"), 2));
        IndexConfig onlyAlpha = new IndexConfig(null, orderedMap("alpha", FieldSpec.text(true, true)),
                IndexConfig.UnknownFields.IGNORE, null, null);

        builder(2).build(store("all"), "all", IndexConfig.defaults(), docs);
        builder(2).build(store("alpha"), "alpha", onlyAlpha, docs);

        assertThat(store("all").readManifest().fieldsSeen()).containsExactly("zeta", "alpha", "beta");
        assertThat(store("alpha").readManifest().fieldsSeen()).containsExactly("alpha");
    }

    @Test
    void forceMergeLeavesOneSegmentPerPartitionAndNoMergeLeavesSeveral() throws IOException {
        List<SourceDocument> bigDocs = bigDocs(250);
        IndexOptions oneSmallWriter = IndexOptions.defaults().withPartitions(1).withThreads(1).withRamBufferMb(1);

        new IndexBuilder(oneSmallWriter.withForceMerge(false), IndexProgress.none()).build(store("unmerged"), "unmerged", CONFIG, bigDocs);
        new IndexBuilder(oneSmallWriter.withForceMerge(true), IndexProgress.none()).build(store("merged"), "merged", CONFIG, bigDocs);

        assertThat(segmentCount(store("unmerged").partitionDir(0))).isGreaterThan(1);
        assertThat(segmentCount(store("merged").partitionDir(0))).isEqualTo(1);
    }

    @Test
    void givesEachPartitionTheSameDocumentsInTheSameOrderWhateverTheThreadCount() throws IOException {
        List<SourceDocument> docs = docs(300);
        IndexOptions options = IndexOptions.defaults().withPartitions(4);

        new IndexBuilder(options.withThreads(1), IndexProgress.none()).build(store("one"), "one", CONFIG, docs);
        new IndexBuilder(options.withThreads(3), IndexProgress.none()).build(store("three"), "three", CONFIG, docs);

        for (int p = 0; p < 4; p++) {
            assertThat(idsIn(store("three").partitionDir(p))).as("partition %d", p)
                    .isNotEmpty()
                    .containsExactlyElementsOf(idsIn(store("one").partitionDir(p)));
        }
    }

    @Test
    void rebuildsAnIncompleteIndexFromScratch() throws IOException {
        PartitionStore store = store("rebuilt");
        builder(8).build(store, "rebuilt", CONFIG, docs(100));
        Files.delete(store.manifestFile()); // as if the last build was killed before it finished
        assertThat(store.isComplete()).isFalse();

        builder(4).build(store, "rebuilt", CONFIG, docs(300));

        assertThat(store.readManifest().partitions()).isEqualTo(4);
        assertThat(store.readManifest().docCount()).isEqualTo(300);
        assertThat(store.partitionDir(4)).as("left over from the 8-partition build").doesNotExist();
        assertThat(store.partitionDir(7)).doesNotExist();
        assertThat(idsIn(store.partitionDir(0)).size() + idsIn(store.partitionDir(1)).size()
                + idsIn(store.partitionDir(2)).size() + idsIn(store.partitionDir(3)).size()).isEqualTo(300);
    }

    @Test
    void failedBuildLeavesNoIndexBehind() throws IOException {
        PartitionStore store = store("failed");
        builder(4).build(store, "failed", CONFIG, docs(50));
        List<SourceDocument> docs = new ArrayList<>(docs(300));
        docs.set(250, new SourceDocument("doc-250", Map.of("price", "12"), 251));

        assertThatThrownBy(() -> builder(4).build(store, "failed", CONFIG, docs))
                .isInstanceOf(BadInputException.class)
                .hasMessage("failed: line 251: field 'price' is not in the index config (unknown_fields: reject)");

        assertThat(store.readManifest().docCount()).as("the old index is whole").isEqualTo(50);
        assertThat(idsIn(store.partitionDir(0)).size() + idsIn(store.partitionDir(1)).size()
                + idsIn(store.partitionDir(2)).size() + idsIn(store.partitionDir(3)).size()).isEqualTo(50);
        try (var entries = Files.list(store.dir())) {
            assertThat(entries.map(e -> e.getFileName().toString()))
                    .as("the failed build's directory is gone").containsExactlyInAnyOrder("index.json", "build-0001");
        }
    }

    @Test
    void rebuildWritesANewBuildAndKeepsAnOldOneThatALeafHolds() throws IOException {
        PartitionStore store = store("switched");
        builder(4).build(store, "switched", CONFIG, docs(50));
        assertThat(store.readManifest().build()).isEqualTo("build-0001");
        try (PartitionStore.ServedBuild served = store.lockCurrentBuild()) {
            IndexSummary second = builder(4).build(store, "switched", CONFIG, docs(80));

            assertThat(store.readManifest().build()).isEqualTo("build-0002");
            assertThat(store.readManifest().docCount()).isEqualTo(80);
            assertThat(second.oldBuildsInUse()).containsExactly("build-0001");
            assertThat(second.render()).contains("kept build-0001: a running cluster serves it");
            assertThat(store.partitionDir(served.manifest(), 0)).as("the served build is intact").isDirectory();
            assertThat(idsIn(store.partitionDir(served.manifest(), 0)).size()
                    + idsIn(store.partitionDir(served.manifest(), 1)).size()
                    + idsIn(store.partitionDir(served.manifest(), 2)).size()
                    + idsIn(store.partitionDir(served.manifest(), 3)).size()).isEqualTo(50);
        }

        IndexSummary third = builder(4).build(store, "switched", CONFIG, docs(90));

        assertThat(third.oldBuildsInUse()).isEmpty();
        try (var entries = Files.list(store.dir())) {
            assertThat(entries.map(e -> e.getFileName().toString()))
                    .containsExactlyInAnyOrder("index.json", "build-0003");
        }
    }

    @Test
    void refusesToBuildIntoADirectoryThatHoldsOtherFiles() throws IOException {
        PartitionStore store = store("thesis");
        Files.createDirectories(store.dir());
        Files.writeString(store.dir().resolve("thesis.tex"), "years of work");

        assertThatThrownBy(() -> builder(4).build(store, "thesis", CONFIG, docs(10)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("refusing to write an index into " + store.dir())
                .hasMessageContaining("thesis.tex");
        assertThat(store.dir().resolve("thesis.tex")).exists();
    }

    @Test
    void skipsBadDocumentsAndKeepsTheFirstTenInInputOrder() throws IOException {
        List<SourceDocument> docs = new ArrayList<>(docs(100));
        for (int i = 0; i < 15; i++) {
            int line = 10 + 5 * i;
            docs.set(line - 1, new SourceDocument("doc-" + (line - 1), Map.of("price", "12"), line));
        }
        IndexBuilder builder = new IndexBuilder(
                IndexOptions.defaults().withPartitions(4).withBadLines(BadLinePolicy.SKIP), IndexProgress.none());

        IndexSummary summary = builder.build(store("skipping"), "skipping", CONFIG, docs);

        assertThat(summary.docs()).isEqualTo(85);
        assertThat(summary.badLinesSkipped()).isEqualTo(15);
        assertThat(summary.firstBadLines()).extracting(BadLine::lineNumber)
                .containsExactly(10L, 15L, 20L, 25L, 30L, 35L, 40L, 45L, 50L, 55L);
        assertThat(summary.render()).contains("skipped 15 bad lines, the first 10:",
                "  line 10: field 'price' is not in the index config (unknown_fields: reject)");
    }

    @Test
    void rejectsAKeywordTooLongToBeOneTermAsABadLine() throws IOException {
        List<SourceDocument> docs = List.of(new SourceDocument("huge", Map.of("color", "é".repeat(20_000)), 1));

        assertThatThrownBy(() -> builder(2).build(store("huge"), "huge", CONFIG, docs))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("line 1: field 'color' is 40000 bytes long in UTF-8 (expected: at most 32766");
    }

    @Test
    void reportsProgressOnceASecondOfTickerTimeThenSaysItIsCommitting() throws IOException {
        AtomicLong nowNanos = new AtomicLong();
        Ticker tenMillisPerReading = () -> nowNanos.addAndGet(10_000_000);
        List<String> reports = new ArrayList<>();
        IndexProgress recorder = new IndexProgress() {
            @Override
            public void indexed(long docs, long expectedDocs, long elapsedNanos) {
                reports.add(docs + "/" + expectedDocs + "@" + elapsedNanos / 1_000_000 + "ms");
            }

            @Override
            public void committing(long docs, int partitions, boolean merging, long elapsedNanos) {
                reports.add("committing " + docs + " into " + partitions + (merging ? " merged" : "") + "@"
                        + elapsedNanos / 1_000_000 + "ms");
            }
        };
        IndexBuilder builder = new IndexBuilder(IndexOptions.defaults().withPartitions(2), recorder,
                tenMillisPerReading, Clock.systemUTC());

        builder.build(store("paced"), "paced", CONFIG, docs(1_000));

        // The start reads the ticker once, then every document once: 100 documents take a second.
        // Documents made in code do not say how many there are: -1.
        assertThat(reports).containsExactly("100/-1@1000ms", "200/-1@2000ms", "300/-1@3000ms", "400/-1@4000ms",
                "500/-1@5000ms", "600/-1@6000ms", "700/-1@7000ms", "800/-1@8000ms", "900/-1@9000ms",
                "1000/-1@10000ms", "committing 1000 into 2 merged@10010ms");
    }

    @Test
    void aQuickBuildDoesNotSayItIsCommitting() throws IOException {
        List<String> reports = new ArrayList<>();
        IndexBuilder builder = new IndexBuilder(IndexOptions.defaults().withPartitions(2), IndexProgress.lines(reports::add),
                () -> 0L, Clock.systemUTC());

        builder.build(store("quick"), "quick", CONFIG, docs(10));

        assertThat(reports).isEmpty();
    }

    @Test
    void reportsLessOftenAsABuildGoesOn() {
        assertThat(IndexBuilder.reportIntervalNanos(0)).isEqualTo(1_000_000_000L);
        assertThat(IndexBuilder.reportIntervalNanos(10_000_000_000L)).isEqualTo(1_000_000_000L);
        assertThat(IndexBuilder.reportIntervalNanos(60_000_000_000L)).isEqualTo(6_000_000_000L);
        assertThat(IndexBuilder.reportIntervalNanos(3_600_000_000_000L)).isEqualTo(30_000_000_000L);
    }

    @Test
    void formatsProgressLinesWithThousandsSeparators() {
        assertThat(IndexProgress.line(8_000, 1_951_219_512L)).isEqualTo("indexed 8,000 docs (4,100 docs/s)");
        assertThat(IndexProgress.line(8_000, -1, 1_951_219_512L)).isEqualTo("indexed 8,000 docs (4,100 docs/s)");
    }

    @Test
    void progressLinesOfASourceOfKnownSizeSayTheShareDoneAndTheTimeToGo() {
        assertThat(IndexProgress.line(412_345, 1_055_820, 117_000_000_000L))
                .isEqualTo("indexed 412,345 of 1,055,820 docs (39%, 3,524 docs/s, 3 min 3 s to go)");
        assertThat(IndexProgress.line(0, 17_597, 0)).isEqualTo("indexed 0 of 17,597 docs (0%, 0 docs/s)");
        assertThat(IndexProgress.line(17_597, 17_597, 5_000_000_000L))
                .isEqualTo("indexed 17,597 of 17,597 docs (100%, 3,519 docs/s, 0 s to go)");
    }

    @Test
    void formatsDurationsAsPreciselyAsAPersonNeeds() {
        assertThat(IndexProgress.duration(41_600_000_000L)).isEqualTo("42 s");
        assertThat(IndexProgress.duration(182_000_000_000L)).isEqualTo("3 min 2 s");
        assertThat(IndexProgress.duration(3_900_000_000_000L)).isEqualTo("1 h 5 min");
        assertThat(IndexProgress.committingLine(1_055_820, 16, true, 301_000_000_000L)).isEqualTo(
                "read 1,055,820 docs in 5 min 1 s; now merging each of the 16 partitions into one segment and committing them");
        assertThat(IndexProgress.committingLine(3, 2, false, 1_000_000_000L)).isEqualTo("read 3 docs in 1 s; now committing the 2 partitions");
    }

    @Test
    void stampsTheManifestWithTheClockToTheMillisecond() throws IOException {
        Clock clock = Clock.fixed(Instant.parse("2026-01-02T03:04:05.678912Z"), ZoneOffset.UTC);
        IndexBuilder builder = new IndexBuilder(IndexOptions.defaults().withPartitions(2), IndexProgress.none(), Ticker.system(), clock);

        builder.build(store("stamped"), "stamped", CONFIG, docs(10));

        assertThat(store("stamped").readManifest().createdAt()).isEqualTo("2026-01-02T03:04:05.678Z");
    }

    @Test
    void rejectsAnIndexNameThatIsNotAPlainWord() {
        assertThatThrownBy(() -> builder(2).build(store("x"), "my index", CONFIG, docs(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("name: 'my index' (expected: 1 to 100 letters, digits");
    }

    @Test
    void ensureEuroparlBuildsOnceAndThenReusesTheIndex() throws IOException {
        ByteArrayOutputStream firstOutput = new ByteArrayOutputStream();
        PartitionStore store = IndexBuilder.ensureEuroparl(tmp, 4, new PrintStream(firstOutput, true, StandardCharsets.UTF_8));

        assertThat(store.dir()).isEqualTo(tmp.resolve("europarl").toAbsolutePath());
        IndexManifest built = store.readManifest();
        assertThat(built.docCount()).isEqualTo(17_597);
        assertThat(built.partitions()).isEqualTo(4);
        assertThat(built.fieldsSeen()).startsWith("title", "date", "body").contains("lang", "body_length", "body.de", "body.fr")
                .allMatch(field -> !field.contains(".") || field.matches("body\\.[a-z]{2,3}"));
        assertThat(firstOutput.toString(StandardCharsets.UTF_8))
                .contains("indexing europarl into " + store.dir() + " (there is none yet)")
                .contains("indexed 17,597 docs into 4 partitions");
        // Document "1" is where the partitioner says, and searchable by id.
        assertThat(search(store.partitionDir(new Partitioner(4).partitionOf("1")), new Term("id", "1"), "id")).containsExactly("1");
        FileTime manifestWritten = Files.getLastModifiedTime(store.manifestFile());

        ByteArrayOutputStream secondOutput = new ByteArrayOutputStream();
        PartitionStore again = IndexBuilder.ensureEuroparl(tmp, 4, new PrintStream(secondOutput, true, StandardCharsets.UTF_8));

        assertThat(again).isEqualTo(store);
        assertThat(again.readManifest().createdAt()).isEqualTo(built.createdAt());
        assertThat(Files.getLastModifiedTime(again.manifestFile())).isEqualTo(manifestWritten);
        assertThat(secondOutput.toString(StandardCharsets.UTF_8).strip()).isEqualTo("using the europarl index in " + store.dir());
    }

    @Test
    void europarlIsRebuiltWhenMissingUnfinishedOrBuiltDifferently() throws IOException {
        PartitionStore store = new PartitionStore(tmp.resolve("europarl"));
        assertThat(IndexBuilder.rebuildReason(store, 4)).isEqualTo("there is none yet");

        Files.createDirectories(store.partitionDir(0));
        assertThat(IndexBuilder.rebuildReason(store, 4)).isEqualTo("the last build did not finish");

        store.writeManifest(europarlManifest(2, IndexConfig.europarl(), 17_597));
        assertThat(IndexBuilder.rebuildReason(store, 4)).isEqualTo("it has 2 partitions, not 4");
        assertThat(IndexBuilder.rebuildReason(store, 2)).isNull();

        store.writeManifest(europarlManifest(2, IndexConfig.defaults(), 17_597));
        assertThat(IndexBuilder.rebuildReason(store, 2)).isEqualTo("it was built with another config");

        store.writeManifest(europarlManifest(2, IndexConfig.europarl(), 10));
        assertThat(IndexBuilder.rebuildReason(store, 2)).isEqualTo("it has 10 docs, not 17,597");

        Files.writeString(store.manifestFile(), "{\"format\": 99}");
        assertThat(IndexBuilder.rebuildReason(store, 2)).isEqualTo("its index.json is unreadable or of an older format");
    }

    private static IndexManifest europarlManifest(int partitions, IndexConfig config, long docs) {
        List<Long> counts = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            counts.add(p == 0 ? docs : 0L);
        }
        return new IndexManifest(IndexManifest.FORMAT, "europarl", partitions, config, List.of("title", "date", "body"),
                1, docs, counts, "2026-01-01T00:00:00Z");
    }

    private PartitionStore store(String name) {
        return new PartitionStore(tmp.resolve(name));
    }

    private static IndexBuilder builder(int partitions) {
        return new IndexBuilder(IndexOptions.defaults().withPartitions(partitions), IndexProgress.none());
    }

    /** {@code doc-0} .. : title "title number i", body with the marker word {@code markeri}, a colour. */
    static List<SourceDocument> docs(int count) {
        List<SourceDocument> docs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            docs.add(new SourceDocument("doc-" + i, orderedMap(
                    "title", "title number " + i,
                    "body", "the body of document " + i + " holds the word marker" + i,
                    "color", i % 3 == 0 ? "red" : "blue"), i + 1));
        }
        return docs;
    }

    /** Documents of about 8 KB of words from a fixed vocabulary, enough to fill small RAM buffers. */
    private static List<SourceDocument> bigDocs(int count) {
        Random random = new Random(20260102L);
        List<SourceDocument> docs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            StringBuilder body = new StringBuilder();
            while (body.length() < 8_000) {
                body.append("w").append(random.nextInt(20_000)).append(' ');
            }
            docs.add(new SourceDocument("big-" + i, Map.of("body", body.toString()), i + 1));
        }
        return docs;
    }

    @SuppressWarnings("unchecked")
    private static <V> Map<String, V> orderedMap(Object... keysAndValues) {
        Map<String, V> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], (V) keysAndValues[i + 1]);
        }
        return map;
    }

    /** The live documents' ids, in doc id order, as the leaf server would open the partition. */
    static List<String> idsIn(Path partitionDir) throws IOException {
        List<String> ids = new ArrayList<>();
        try (Directory dir = new MMapDirectory(partitionDir); DirectoryReader reader = DirectoryReader.open(dir)) {
            for (LeafReaderContext leaf : reader.leaves()) {
                StoredFields stored = leaf.reader().storedFields();
                Bits live = leaf.reader().getLiveDocs();
                for (int doc = 0; doc < leaf.reader().maxDoc(); doc++) {
                    if (live == null || live.get(doc)) {
                        ids.add(stored.document(doc).get(IndexConfig.ID_FIELD));
                    }
                }
            }
        }
        return ids;
    }

    private static int segmentCount(Path partitionDir) throws IOException {
        try (Directory dir = new MMapDirectory(partitionDir); DirectoryReader reader = DirectoryReader.open(dir)) {
            return reader.leaves().size();
        }
    }

    /** The stored {@code field} of every hit for {@code term}. */
    private static List<String> search(Path partitionDir, Term term, String field) throws IOException {
        List<String> values = new ArrayList<>();
        try (Directory dir = new MMapDirectory(partitionDir); DirectoryReader reader = DirectoryReader.open(dir)) {
            IndexSearcher searcher = new IndexSearcher(reader);
            StoredFields stored = searcher.storedFields();
            for (ScoreDoc hit : searcher.search(new TermQuery(term), 1_000).scoreDocs) {
                values.add(stored.document(hit.doc).get(field));
            }
        }
        return values;
    }
}
