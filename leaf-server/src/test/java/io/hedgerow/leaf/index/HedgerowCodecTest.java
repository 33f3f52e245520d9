package io.hedgerow.leaf.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.codecs.Codec;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.SegmentReader;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.MMapDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HedgerowCodecTest {
    private static final long SEED = 20261122L;

    @TempDir
    Path dir;

    @Test
    void isFoundByNameSoPartitionsOpenWithAPlainReader() {
        assertThat(Codec.forName(HedgerowCodec.NAME)).isInstanceOf(HedgerowCodec.class);
    }

    @Test
    void storedFieldsReadBackExactlyAcrossChunksSegmentsAndAMerge() throws IOException {
        // Sizes around the 16 KB chunk, and documents far larger than two chunks (stored in slices).
        SplittableRandom random = new SplittableRandom(SEED);
        List<String> bodies = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            int length = i % 97 == 0 ? 40_000 + random.nextInt(80_000) : random.nextInt(3_000);
            StringBuilder body = new StringBuilder(length);
            for (int c = 0; c < length; c++) {
                body.append(c % 50 == 49 ? ' ' : (char) ('a' + random.nextInt(26)));
            }
            bodies.add(i % 10 == 3 ? "Ελληνικά – 日本語 " + body : body.toString());
        }
        try (Directory directory = new MMapDirectory(dir)) {
            IndexWriterConfig config = new IndexWriterConfig(new StandardAnalyzer()).setCodec(new HedgerowCodec())
                    .setMaxBufferedDocs(100); // several segments, so the merge below has work
            try (IndexWriter writer = new IndexWriter(directory, config)) {
                for (int i = 0; i < bodies.size(); i++) {
                    Document doc = new Document();
                    doc.add(new StringField("id", Integer.toString(i), Field.Store.YES));
                    doc.add(new StoredField("body", bodies.get(i)));
                    writer.addDocument(doc);
                }
                writer.commit();
                assertAllReadBack(directory, bodies, 6);
                writer.forceMerge(1);
                writer.commit();
            }
            assertAllReadBack(directory, bodies, 1);
        }
    }

    private static void assertAllReadBack(Directory directory, List<String> bodies, int expectedSegments)
            throws IOException {
        try (DirectoryReader reader = DirectoryReader.open(directory)) {
            assertThat(reader.leaves()).hasSize(expectedSegments);
            assertThat(((SegmentReader) reader.leaves().get(0).reader()).getSegmentInfo().info.getCodec().getName())
                    .isEqualTo(HedgerowCodec.NAME);
            StoredFields stored = reader.storedFields();
            // Backwards, so reads jump between chunks rather than walk through them.
            for (int doc = reader.maxDoc() - 1; doc >= 0; doc--) {
                Document document = stored.document(doc);
                int id = Integer.parseInt(document.get("id"));
                assertThat(document.get("body")).as("body of doc %d (seed %d)", id, SEED).isEqualTo(bodies.get(id));
            }
        }
    }
}
