package io.hedgerow.root.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.root.TestData;
import io.hedgerow.root.embedded.EmbeddedCluster;
import io.hedgerow.root.write.DocumentWriter.WriteOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writes of large documents queued together are sent in batches capped by bytes, not only by
 * count: 40 documents of about 500 KB (20 MB, past the 16 MiB frame) to one partition are all
 * acknowledged, and both replicas stay in sync (an oversized frame would close the connection and
 * fail the batch). Real leaves over loopback, real Lucene.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class BatchBytesTest {
    @Test
    void largeDocumentsQueuedTogetherAreSentInBatchesWithinTheFrame(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder(data)
                .documents("bytes", IndexConfig.defaults(), TestData.documents(3, 20))
                .leaves(2).partitions(1).replicas(2).start()) {
            DocumentWriter documents = cluster.root().documents();
            String body = "saxifrage ".repeat(50_000); // about 500 KB
            List<CompletableFuture<DocumentResult>> writes = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                writes.add(documents.upsert("large-" + i, Map.of("title", "large " + i, "body", body),
                        WriteOptions.NONE));
            }
            for (CompletableFuture<DocumentResult> write : writes) {
                DocumentResult result = write.get(60, TimeUnit.SECONDS);
                assertThat(result.outcome()).as("%s: %s", result.id(), result.error())
                        .isEqualTo(DocumentResult.Outcome.CREATED);
            }
            assertThat(documents.inSyncReplicas(0)).isEqualTo(2);
        }
    }
}
