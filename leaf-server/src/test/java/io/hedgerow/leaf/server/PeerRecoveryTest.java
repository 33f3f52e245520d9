package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.hedgerow.common.wire.proto.SnapshotFile;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.StoredField;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteOutcome;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.PartitionStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Peer recovery between two real leaves whose partition stores are different directories (each its
 * own copy of the build, nothing shared), over loopback sockets, on real Lucene indexes: the test
 * plays the root (SNAPSHOT to the primary, RESTORE naming the primary's address to the replica). The
 * replica's copy then holds exactly the primary's documents; a transfer cut midway resumes where it
 * stopped without fetching again what it finished; a chunk with one byte flipped is caught by the
 * file's checksum and the copy refused. A {@link FrameRelay} between the leaves cuts or corrupts.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class PeerRecoveryTest {
    private static final long SEED = 31;
    private static final int BATCHES = 4;
    private static final int BATCH_DOCS = 60;
    private static final int WRITES = BATCHES * BATCH_DOCS;

    @TempDir
    Path dir;
    @RegisterExtension
    final WritingLeaf primaryLeaf = new WritingLeaf("peer", 1);
    @RegisterExtension
    final WritingLeaf replicaLeaf = new WritingLeaf("peer", 1);
    private PartitionStore primaryStore;
    private PartitionStore replicaStore;
    private FrameSocket primary;
    private FrameSocket replica;
    private String snapshot;

    @BeforeEach
    void start() throws IOException {
        primaryStore = TestLeaves.hedgerowIndex(dir.resolve("a"), "peer", 1);
        replicaStore = new PartitionStore(TestLeaves.copyTree(dir.resolve("a"), dir.resolve("b")));
        primary = primaryLeaf.start(primaryStore, 0);
        replica = replicaLeaf.start(replicaStore, 0);
        // The replica's own copy: a write the primary never had, which the restore must drop.
        assertThat(replicaLeaf.call(replica, write(true, upsert("stray", "a stray vole"))).getStatus()).isEqualTo(Status.OK);
        // Enough text that the primary's new segment has a file of several chunks (1 MiB each).
        Random random = new Random(SEED);
        for (int batch = 0; batch < BATCHES; batch++) {
            List<WriteOp> ops = new ArrayList<>();
            for (int i = 0; i < BATCH_DOCS; i++) {
                ops.add(upsert("w-" + batch + "-" + i, words(random, 800)));
            }
            WriteResponse written = primaryLeaf.call(primary, write(true, ops.toArray(WriteOp[]::new)));
            assertThat(written.getStatus()).as(written.getError()).isEqualTo(Status.OK);
        }
        WriteResponse made = primaryLeaf.call(primary, WriteRequest.newBuilder().setPartition(0)
                .addOps(WriteOp.newBuilder().setKind(WriteKind.SNAPSHOT)));
        assertThat(made.getStatus()).as(made.getError()).isEqualTo(Status.OK);
        assertThat(made.getLastSeq()).isEqualTo(WRITES);
        snapshot = made.getSnapshot();
    }

    @Test
    void aCopyOnAnotherStoreIsPulledOverTheWireAndHoldsExactlyThePrimarysDocuments() throws IOException {
        WriteResponse restored = restore(primaryLeaf.server().address());
        assertThat(restored.getStatus()).as(restored.getError()).isEqualTo(Status.OK);
        assertThat(restored.getLastSeq()).isEqualTo(WRITES);

        Map<String, List<String>> primaryDocs = documents(indexDir(primaryStore));
        assertThat(primaryDocs).hasSize(40 + WRITES);
        assertThat(documents(indexDir(replicaStore))).as("the replica's copy, document by document")
                .isEqualTo(primaryDocs);
        assertThat(get(replicaLeaf, replica, "stray").getOutcome()).isEqualTo(WriteOutcome.NOT_FOUND);
        assertThat(get(replicaLeaf, replica, "w-3-" + (BATCH_DOCS - 1)).getVersion()).isEqualTo(WRITES);
        assertThat(replicaLeaf.call(replica, write(false, upsert("w-next", "a heron").toBuilder().setSeq(WRITES + 1).build()))
                .getLastSeq()).as("it takes the primary's next write as a replica").isEqualTo(WRITES + 1);
    }

    @Test
    void aTransferCutMidwayResumesWhereItStoppedAndDoesNotFetchWhatItFinished() throws IOException {
        Map<String, SnapshotFile> listed = new HashMap<>();
        AtomicBoolean cut = new AtomicBoolean();
        WriteResponse failed;
        try (FrameRelay relay = new FrameRelay(primaryLeaf.server().port(), frame -> {
            WriteResponse answer = frame.getWriteResult();
            answer.getSnapshotFilesList().forEach(file -> listed.put(file.getName(), file));
            // Cut after the first chunk that leaves its file unfinished: passed on, then the link closes.
            if (!answer.getChunk().isEmpty() && answer.getChunk().size() < answer.getFileLength()
                    && cut.compareAndSet(false, true)) {
                return frame;
            }
            return cut.get() ? null : frame;
        })) {
            failed = restore(relay.address());
        }
        assertThat(failed.getStatus()).isEqualTo(Status.ERROR);
        assertThat(cut).isTrue();

        Path staging = only(replicaStore.liveDir(), "recovery/partition-0000");
        Map<String, Long> finished = new TreeMap<>();
        String partial = null;
        try (Stream<Path> files = Files.list(staging)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                long size = Files.size(file);
                if (size == listed.get(name).getLength()) {
                    finished.put(name, size);
                    // Marked: a file fetched (or written) again would not keep this time.
                    Files.setLastModifiedTime(file, FileTime.fromMillis(978_307_200_000L));
                } else {
                    assertThat(partial).as("one file is partly copied").isNull();
                    partial = name;
                }
            }
        }
        assertThat(partial).as("the file cut midway").isNotNull();
        long partialLength = Files.size(staging.resolve(partial));
        assertThat(partialLength).isPositive();
        assertThat(finished).as("files done before the cut").isNotEmpty();

        WriteResponse resumed;
        List<WriteRequest> asked;
        try (FrameRelay relay = new FrameRelay(primaryLeaf.server().port(), frame -> frame)) {
            resumed = restore(relay.address());
            asked = List.copyOf(relay.requests);
        }
        assertThat(resumed.getStatus()).as(resumed.getError()).isEqualTo(Status.OK);
        List<WriteRequest> reads = asked.stream()
                .filter(request -> request.getOps(0).getKind() == WriteKind.READ_SNAPSHOT_FILE).toList();
        assertThat(reads).as("no finished file is fetched again")
                .noneMatch(request -> finished.containsKey(request.getFileName()));
        String resumedFile = partial;
        assertThat(reads.stream().filter(request -> request.getFileName().equals(resumedFile)).findFirst().orElseThrow()
                .getFileOffset()).as("the partial file continues from its length").isEqualTo(partialLength);
        Path index = indexDir(replicaStore);
        for (String name : finished.keySet()) {
            assertThat(Files.getLastModifiedTime(index.resolve(name)).toMillis()).as(name + " kept as it was")
                    .isEqualTo(978_307_200_000L);
        }
        assertThat(documents(index)).isEqualTo(documents(indexDir(primaryStore)));
    }

    @Test
    void aChunkWithAFlippedByteIsCaughtByTheChecksumAndTheCopyIsRefused() throws IOException {
        AtomicBoolean flipped = new AtomicBoolean();
        String[] corruptFile = new String[1];
        WriteResponse refused;
        try (FrameRelay relay = new FrameRelay(primaryLeaf.server().port(), frame -> {
            WriteResponse answer = frame.getWriteResult();
            if (answer.getChunk().size() > 100 && flipped.compareAndSet(false, true)) {
                byte[] bytes = answer.getChunk().toByteArray();
                bytes[bytes.length / 2] ^= 0x20;
                corruptFile[0] = findName(answer);
                return frame.toBuilder().setWriteResult(answer.toBuilder().setChunk(ByteString.copyFrom(bytes))).build();
            }
            return frame;
        })) {
            refused = restore(relay.address());
        }
        assertThat(flipped).isTrue();
        assertThat(refused.getStatus()).isEqualTo(Status.ERROR);
        assertThat(refused.getError()).contains("arrived corrupt").contains("the copy is refused");
        assertThat(get(replicaLeaf, replica, "stray").getOutcome()).as("the replica's copy is kept")
                .isEqualTo(WriteOutcome.FOUND);
        assertThat(get(replicaLeaf, replica, "w-0-0").getOutcome()).isEqualTo(WriteOutcome.NOT_FOUND);

        WriteResponse again = restore(primaryLeaf.server().address());
        assertThat(again.getStatus()).as("a clean transfer then succeeds: " + again.getError()).isEqualTo(Status.OK);
        assertThat(documents(indexDir(replicaStore))).isEqualTo(documents(indexDir(primaryStore)));
    }

    /** The chunk answer does not name its file; the test needs only to know one was corrupted. */
    private static String findName(WriteResponse answer) {
        return "a file of " + answer.getFileLength() + " bytes";
    }

    private WriteResponse restore(String source) throws IOException {
        return replicaLeaf.call(replica, WriteRequest.newBuilder().setPartition(0).setSnapshot(snapshot)
                .setSourceAddress(source).addOps(WriteOp.newBuilder().setKind(WriteKind.RESTORE)));
    }

    /** Every live document of the copy's last commit: its id and its stored fields, as text. */
    private static Map<String, List<String>> documents(Path index) throws IOException {
        Map<String, List<String>> docs = new TreeMap<>();
        try (FSDirectory directory = FSDirectory.open(index); DirectoryReader reader = DirectoryReader.open(directory)) {
            for (LeafReaderContext leaf : reader.leaves()) {
                Bits live = leaf.reader().getLiveDocs();
                StoredFields stored = leaf.reader().storedFields();
                for (int doc = 0; doc < leaf.reader().maxDoc(); doc++) {
                    if (live != null && !live.get(doc)) {
                        continue;
                    }
                    List<String> fields = new ArrayList<>();
                    String id = null;
                    for (IndexableField field : stored.document(doc).getFields()) {
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
        return only(store.liveDir(), "partition-0000/index");
    }

    private static Path only(Path root, String suffix) throws IOException {
        try (Stream<Path> walked = Files.walk(root)) {
            List<Path> found = walked.filter(path -> path.endsWith(suffix) && Files.isDirectory(path)).toList();
            assertThat(found).as(suffix + " under " + root).hasSize(1);
            return found.get(0);
        }
    }

    private static String words(Random random, int count) {
        StringBuilder text = new StringBuilder();
        for (int w = 0; w < count; w++) {
            int length = 3 + random.nextInt(6);
            for (int c = 0; c < length; c++) {
                text.append((char) ('a' + random.nextInt(26)));
            }
            text.append(' ');
        }
        return text.toString();
    }

    private static WriteOp upsert(String id, String body) {
        return WriteOp.newBuilder().setKind(WriteKind.UPSERT).setId(id)
                .addFields(StoredField.newBuilder().setName("title").setValue("live " + id))
                .addFields(StoredField.newBuilder().setName("body").setValue(body)).build();
    }

    private static WriteRequest.Builder write(boolean primary, WriteOp... ops) {
        return WriteRequest.newBuilder().setPartition(0).setPrimary(primary).addAllOps(List.of(ops));
    }

    private static io.hedgerow.common.wire.proto.WriteResult get(WritingLeaf leaf, FrameSocket root, String id)
            throws IOException {
        return leaf.call(root, WriteRequest.newBuilder().setPartition(0)
                .addOps(WriteOp.newBuilder().setKind(WriteKind.GET).setId(id))).getResults(0);
    }
}
