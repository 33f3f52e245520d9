package io.hedgerow.leaf.write;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.OneMergeWrappingMergePolicy;
import org.apache.lucene.index.SegmentReader;
import org.apache.lucene.index.SerialMergeScheduler;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under steady small writes (a refresh every 20 documents, as a partition sees under bulk load),
 * a live copy merges each document a few times, not once per merge of the small segments: with
 * Lucene's default floor (16 MB) 8,000 documents cost 43,880 merged, and 1 MB still 42,400; 21,840
 * at {@link LivePartition#MERGE_FLOOR_MB}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LiveMergeFloorTest {
    private static final int REFRESHES = 400;
    private static final int DOCS_PER_REFRESH = 20;

    @TempDir
    Path dir;

    @Test
    void steadySmallWritesAreMergedAFewTimesEachNotOncePerMerge() throws IOException {
        Random random = new Random(43);
        try (FSDirectory directory = FSDirectory.open(dir)) {
            buildOneSegment(directory, random);
            AtomicLong merged = new AtomicLong();
            IndexWriterConfig live = LivePartition.writerConfig(new StandardAnalyzer());
            live.setMergePolicy(new OneMergeWrappingMergePolicy(live.getMergePolicy(), merge -> {
                merged.addAndGet(merge.segments.stream().mapToLong(segment -> segment.info.maxDoc()).sum());
                return merge;
            })).setMergeScheduler(new SerialMergeScheduler()); // merges finish inside the refresh that starts them
            int added = 0;
            try (IndexWriter writer = new IndexWriter(directory, live)) {
                DirectoryReader reader = DirectoryReader.open(writer);
                try {
                    for (int refresh = 0; refresh < REFRESHES; refresh++) {
                        for (int i = 0; i < DOCS_PER_REFRESH; i++) {
                            writer.addDocument(document(random, 150));
                            added++;
                        }
                        DirectoryReader next = DirectoryReader.openIfChanged(reader, writer);
                        reader.close();
                        reader = next;
                    }
                    assertThat(reader.leaves().size()).as("small segments are merged, not left to pile up")
                            .isLessThan(30);
                } finally {
                    reader.close();
                }
            }
            assertThat(merged.get()).as("documents merged, for %d written in %d refreshes", added, REFRESHES)
                    .isLessThan(4L * added);
        }
    }

    /** A committed one-segment partition well over the floor, as the offline build leaves it. */
    private static void buildOneSegment(FSDirectory directory, Random random) throws IOException {
        try (IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig(new StandardAnalyzer()))) {
            for (int i = 0; i < 4_000; i++) {
                writer.addDocument(document(random, 150));
            }
            writer.forceMerge(1);
            writer.commit();
        }
        try (DirectoryReader reader = DirectoryReader.open(directory)) {
            assertThat(reader.leaves()).hasSize(1);
            SegmentReader segment = (SegmentReader) reader.leaves().get(0).reader();
            assertThat(segment.getSegmentInfo().sizeInBytes()).as("the built segment is over the floor")
                    .isGreaterThan((long) (2 * LivePartition.MERGE_FLOOR_MB * 1024 * 1024));
        }
    }

    private static Document document(Random random, int words) {
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < words; i++) {
            body.append("w").append(Integer.toString(random.nextInt(20_000), 36)).append(' ');
        }
        Document doc = new Document();
        doc.add(new TextField("body", body.toString(), Field.Store.YES));
        return doc;
    }
}
