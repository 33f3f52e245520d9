package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.common.wire.proto.AssignPartitions;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.search.IndexContext;
import io.hedgerow.leaf.search.PartitionWarmer;
import io.hedgerow.leaf.write.LiveSettings;
import io.hedgerow.leaf.write.LiveWrites;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partition that took writes before the leaf restarted is served from its live copy, and warmed
 * like a partition opened from the build before the assignment's ack says it is served: it must not
 * serve its first searches cold.
 */
@Timeout(60)
class LiveCopyWarmupTest {
    private static final String INDEX = "live-warm";
    /** Names the leaf's live directory, so the second start finds the first one's copy. */
    private static final int PORT = 47_001;

    @TempDir
    Path dir;

    @Test
    void aLiveCopyFoundAtAssignmentIsWarmedBeforeTheAck() throws IOException {
        PartitionStore store = TestLeaves.hedgerowIndex(dir.resolve(INDEX), INDEX, 1);
        IndexContext index = IndexContext.of(store, store.readManifest());
        // A first life of the leaf: the partition takes writes, so a live copy of it is left on disk.
        try (OpenPartitions first = new OpenPartitions(index, PartitionWarmer.paced(Duration.ZERO))) {
            LiveWrites writes = attachWrites(first, index, store);
            writes.open(0);
            assertThat(writes.hasCopy(0)).isTrue();
        }

        // Each warm-up search pauses once; the pause moves the warmer's clock, so its budget ends it.
        ManualTicker ticker = new ManualTicker();
        AtomicInteger warmSearches = new AtomicInteger();
        PartitionWarmer counting = new PartitionWarmer(ticker, Duration.ofSeconds(1), nanos -> {
            warmSearches.incrementAndGet();
            ticker.advanceMillis(100);
        });
        try (OpenPartitions second = new OpenPartitions(index, counting)) {
            attachWrites(second, index, store);
            String error = second.assign(AssignPartitions.newBuilder().setRequestId(1).setIndexName(INDEX)
                    .addPartitions(0).build()).getError();

            assertThat(error).isEmpty();
            assertThat(warmSearches.get()).as("warm-up searches of the live copy before the ack").isPositive();
            assertThat(second.get(0)).as("served").isNotNull();
        }
    }

    private static LiveWrites attachWrites(OpenPartitions partitions, IndexContext index, PartitionStore store) {
        LiveWrites writes = new LiveWrites(index, LiveSettings.defaults(), partitions::replace,
                partition -> partitions.get(partition) != null);
        partitions.attachLive(writes);
        writes.start(store.liveDir(), PORT);
        return writes;
    }
}
