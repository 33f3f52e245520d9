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
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Catching up a replica far behind the primary (its log trimmed past the replica) when the two
 * leaves share no directory: each opens its own copy of the build, so the primary's snapshot can
 * only reach the replica over the wire (peer recovery). The root snapshots the primary, has the
 * replica pull it from the primary's address, replays the log above it, and marks it in sync; the
 * replica's copy then holds exactly the primary's documents, field by field. Real leaves over
 * loopback, real Lucene indexes, one partition.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class PeerRecoveryCatchUpTest {
    // A deadline, not a timing claim.
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final LiveSettings LIVE = LiveSettings.defaults().withCommitInterval(Duration.ofMillis(100));

    @Test
    void aReplicaOnItsOwnStoreFarBehindIsCaughtUpOverTheWireAndHoldsExactlyThePrimarysDocuments(@TempDir Path data)
            throws Exception {
        PartitionStore primaryStore = new PartitionStore(data.resolve("a"));
        new IndexBuilder(IndexOptions.defaults().withPartitions(1), IndexProgress.none())
                .build(primaryStore, "peer", IndexConfig.defaults(), TestData.documents(3, 50));
        PartitionStore replicaStore = new PartitionStore(copyTree(data.resolve("a"), data.resolve("b")));
        IndexManifest manifest = primaryStore.readManifest();
        EventLoopGroup group = Transport.best().newGroup(1, "test-writes");
        LeafServer first = LeafServer.start(LeafConfig.defaults(primaryStore.dir()).withLive(LIVE));
        LeafServer second = LeafServer.start(LeafConfig.defaults(replicaStore.dir()).withLive(LIVE));
        int secondPort = second.port();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (RootServer root = RootServer.start(ClusterConfig.of(manifest, List.of(first.address(), second.address()), 2),
                null, 0, PATIENCE);
                DocumentWriter documents = new DocumentWriter(root.cluster(), group, Transport.best(),
                        WriteSettings.defaults().withRetainedLogOps(20), Ticker.system(), () -> { }, registry)) {
            write(documents, 0, 10);
            second.close();
            write(documents, 10, 41);
            assertThat(documents.delete("p-003", WriteOptions.NONE).join().outcome().succeeded()).isTrue();

            WriteLink primary = new WriteLink(LeafAddress.parse(first.address()), group, Transport.best().channelClass(),
                    root.cluster().rootHello(), root.cluster().config().maxFrameBytes(), root.cluster().linkTls());
            Await.until("the primary to trim its log past the stopped replica", PATIENCE, () -> {
                write(documents, 41, 42);
                return trimmedSeq(primary) > 10;
            });
            primary.close();

            try (LeafServer restarted = LeafServer.start(LeafConfig.defaults(replicaStore.dir()).withPort(secondPort)
                    .withLive(LIVE))) {
                LeafAddress behind = LeafAddress.parse(restarted.address());
                Await.until(() -> "catch-up over the wire: " + problemOf(documents, behind), PATIENCE,
                        () -> documents.inSync(0, behind));
                assertThat(registry.get("hedgerow.write.snapshot.restores").counter().count()).isEqualTo(1);
                write(documents, 42, 45);
                restarted.close(); // commits its copy
                first.close();
            }
        } finally {
            first.close();
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
        }
        Map<String, List<String>> primaryDocs = documents(indexDir(primaryStore));
        assertThat(primaryDocs).containsKeys("p-000", "p-044").doesNotContainKey("p-003");
        assertThat(documents(indexDir(replicaStore))).as("the replica's copy, document by document")
                .isEqualTo(primaryDocs);
    }

    private static void write(DocumentWriter documents, int from, int to) {
        for (int i = from; i < to; i++) {
            String id = String.format("p-%03d", i);
            assertThat(documents.upsert(id, Map.of("title", "tundra " + i, "body", "lichen " + i), WriteOptions.NONE)
                    .join().outcome().succeeded()).as(id).isTrue();
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

    /** Every live document of the copy's last commit: its stored fields, as text, by id. */
    private static Map<String, List<String>> documents(Path index) throws IOException {
        Map<String, List<String>> docs = new TreeMap<>();
        try (FSDirectory directory = FSDirectory.open(index); DirectoryReader reader = DirectoryReader.open(directory)) {
            for (LeafReaderContext leaf : reader.leaves()) {
                Bits live = leaf.reader().getLiveDocs();
                for (int doc = 0; doc < leaf.reader().maxDoc(); doc++) {
                    if (live != null && !live.get(doc)) {
                        continue;
                    }
                    List<String> fields = new ArrayList<>();
                    String id = null;
                    for (IndexableField field : leaf.reader().storedFields().document(doc).getFields()) {
                        fields.add(field.name() + "=" + field.stringValue());
                        if (field.name().equals(IndexConfig.ID_FIELD)) {
                            id = field.stringValue();
                        }
                    }
                    fields.sort(null);
                    assertThat(docs.put(id, fields)).as("one document per id: " + id).isNull();
                }
            }
        }
        return docs;
    }

    private static Path indexDir(PartitionStore store) throws IOException {
        try (Stream<Path> walked = Files.walk(store.liveDir())) {
            List<Path> found = walked.filter(path -> path.endsWith("partition-0000/index")).toList();
            assertThat(found).as("the leaf's copy under " + store.liveDir()).hasSize(1);
            return found.get(0);
        }
    }

    private static Path copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> walked = Files.walk(from)) {
            for (Path path : (Iterable<Path>) walked::iterator) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(path, target);
                }
            }
        }
        return to;
    }
}
