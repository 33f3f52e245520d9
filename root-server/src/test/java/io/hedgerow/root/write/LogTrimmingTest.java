package io.hedgerow.root.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.net.Transport;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexManifest;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.server.LeafConfig;
import io.hedgerow.leaf.server.LeafServer;
import io.hedgerow.leaf.write.LiveSettings;
import io.hedgerow.root.Await;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.cluster.LeafAddress;
import io.hedgerow.root.write.DocumentWriter.WriteOptions;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.EventLoopGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write-ahead logs are trimmed below what every replica holds, except for a replica further
 * behind than the retention: the primary's log no longer reaches back to it, so it is never caught up
 * from the log (that would leave a hole) but from a snapshot of the primary's copy, then the log
 * above it, and it then holds every acknowledged write. Real leaves (committing every 100 ms) over
 * loopback, real Lucene indexes, one partition.
 */
class LogTrimmingTest {
    // A deadline, not a timing claim: generous, so a loaded 2-core machine (one full run took 20 s here) does not fail it.
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final LiveSettings LIVE = LiveSettings.defaults().withCommitInterval(Duration.ofMillis(100));

    @Test
    void aReplicaBehindTheRetainedLogCatchesUpFromASnapshotOfThePrimarysCopy(@TempDir Path data) throws Exception {
        PartitionStore index = new PartitionStore(data.resolve("trim"));
        new IndexBuilder(IndexOptions.defaults().withPartitions(1), IndexProgress.none())
                .build(index, "trim", IndexConfig.defaults(), TestData.documents(3, 50));
        IndexManifest manifest = index.readManifest();
        EventLoopGroup group = Transport.best().newGroup(1, "test-writes");
        LeafServer first = LeafServer.start(LeafConfig.defaults(index.dir()).withLive(LIVE));
        LeafServer second = LeafServer.start(LeafConfig.defaults(index.dir()).withLive(LIVE));
        int secondPort = second.port();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (RootServer root = RootServer.start(ClusterConfig.of(manifest, List.of(first.address(), second.address()), 2),
                null, 0, PATIENCE);
                DocumentWriter documents = new DocumentWriter(root.cluster(), group, Transport.best(),
                        WriteSettings.defaults().withRetainedLogOps(20), Ticker.system(), () -> { }, registry)) {
            write(documents, 0, 10);
            second.close();
            write(documents, 10, 41);

            // 41 records against the stopped replica's 10 until the primary trims past seq 10 (the
            // primary's log, asked as the root asks it; its file size says nothing: the stopped
            // replica's own log was trimmed as it went while it was in sync).
            WriteLink primary = new WriteLink(LeafAddress.parse(first.address()), group, Transport.best().channelClass(),
                    root.cluster().rootHello(), root.cluster().config().maxFrameBytes(), root.cluster().linkTls());
            Await.until("the primary to trim its log", PATIENCE, () -> {
                write(documents, 41, 42);
                return trimmedSeq(primary) > 10;
            });
            primary.close();

            try (LeafServer restarted = LeafServer.start(LeafConfig.defaults(index.dir()).withPort(secondPort)
                    .withLive(LIVE))) {
                LeafAddress behind = LeafAddress.parse(restarted.address());
                Await.until(() -> "catch-up from a snapshot: " + problemOf(documents, behind), PATIENCE,
                        () -> documents.inSync(0, behind));
                assertThat(registry.get("hedgerow.write.snapshot.restores").counter().count()).isEqualTo(1);
                first.close();
                assertThat(documents.upsert("after", Map.of("title", "taiga"), WriteOptions.NONE).join().outcome())
                        .as("writes go on with the caught-up replica as primary").isEqualTo(DocumentResult.Outcome.CREATED);
                for (int i = 0; i < 41; i++) {
                    String id = String.format("t-%03d", i);
                    assertThat(documents.get(id).join().outcome()).as(id).isEqualTo(DocumentResult.Outcome.FOUND);
                }
            }
        } finally {
            first.close();
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
        }
    }

    private static void write(DocumentWriter documents, int from, int to) {
        for (int i = from; i < to; i++) {
            String id = String.format("t-%03d", i);
            assertThat(documents.upsert(id, Map.of("title", "steppe", "body", "steppe"), WriteOptions.NONE).join()
                    .outcome().succeeded()).as(id).isTrue();
        }
    }

    private static long trimmedSeq(WriteLink leaf) {
        WriteResponse answer = leaf.send(ReplicaCatchUp.readLog(WriteRequest.newBuilder().setPartition(0), Long.MAX_VALUE),
                PATIENCE).join();
        assertThat(answer.getStatus()).isEqualTo(Status.OK);
        return answer.getTrimmedSeq();
    }

    private static String problemOf(DocumentWriter documents, LeafAddress leaf) {
        return documents.replicas(0).stream().filter(r -> r.leaf().equals(leaf)).findFirst().orElseThrow().problem();
    }
}
