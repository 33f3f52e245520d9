package io.hedgerow.leaf.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.StoredField;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteOutcome;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.leaf.search.IndexContext;
import io.hedgerow.leaf.search.PartitionSearcher;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * File-based recovery between two leaves' live writes, driven through the write requests the root
 * sends (no sockets: {@link LiveWrites#answer} on the test's thread, the replica pulling the
 * primary's snapshot through an in-JVM {@link PeerFiles} that answers from the primary's
 * {@link SnapshotFiles}): a snapshot of one copy, restored as another's, holds every write up to its
 * seq, takes the next ones as a replica, and drops what the replaced copy held beyond it. Peer
 * recovery over real sockets, on separate stores: {@code io.hedgerow.leaf.server.PeerRecoveryTest}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SnapshotRestoreTest {
    @TempDir
    Path dir;
    private final Map<String, PartitionSearcher> served = new ConcurrentHashMap<>();
    /** For each searcher leaf b served: whether its copy's term fence was on disk then. */
    private final List<Boolean> fencedWhenServed = new CopyOnWriteArrayList<>();
    private LiveWrites primary;
    private LiveWrites replica;

    @BeforeEach
    void start() throws IOException {
        IndexContext index = BuiltIndex.build(dir, "snap", 20);
        Path buildLive = BuiltIndex.liveDir(index);
        primary = start(index, "a", buildLive, PeerFiles.NONE);
        replica = start(index, "b", buildLive, address -> {
            assertThat(address).isEqualTo("leaf-a:1");
            SnapshotFiles.Session session = primary.snapshotSession();
            return new PeerFiles.Session() {
                @Override
                public WriteResponse call(WriteRequest request) {
                    return session.answer(request);
                }

                @Override
                public void close() {
                    session.close();
                }
            };
        });
    }

    private LiveWrites start(IndexContext index, String node, Path buildLive, PeerFiles peers) {
        LiveWrites writes = new LiveWrites(index, LiveSettings.defaults().withNodeId(node),
                (partition, searcher) -> {
                    if (node.equals("b")) {
                        fencedWhenServed.add(Files.exists(copyDir("b").resolve(PrimaryTerms.FILE)));
                    }
                    served.put(node, searcher);
                }, partition -> partition == 0);
        writes.start(buildLive, 0, peers);
        return writes;
    }

    @AfterEach
    void stop() {
        primary.close();
        replica.close();
    }

    @Test
    void aRestoredSnapshotHoldsThePrimarysWritesAndTakesTheNextOnesAsAReplica() {
        assertThat(answer(primary, writes(0, 30, true)).getLastSeq()).isEqualTo(30);
        // The replica took a write the primary never acknowledged (a failed primary's, say).
        assertThat(answer(replica, request().addOps(upsert("stray", 1))).getStatus()).isEqualTo(Status.OK);

        WriteResponse snapshot = answer(primary, request().addOps(WriteOp.newBuilder().setKind(WriteKind.SNAPSHOT)));
        assertThat(snapshot.getStatus()).isEqualTo(Status.OK);
        assertThat(snapshot.getLastSeq()).isEqualTo(30);
        assertThat(snapshot.getSnapshot()).isEqualTo("partition-0000/node-a-seq-30");
        assertThat(answer(primary, request().addOps(WriteOp.newBuilder().setKind(WriteKind.SNAPSHOT))).getSnapshot())
                .as("asked again at the same seq: the same snapshot").isEqualTo(snapshot.getSnapshot());

        WriteResponse restored = answer(replica, request().setSnapshot(snapshot.getSnapshot()).setSourceAddress("leaf-a:1")
                .addOps(WriteOp.newBuilder().setKind(WriteKind.RESTORE)));
        assertThat(restored.getStatus()).as(restored.getError()).isEqualTo(Status.OK);
        assertThat(restored.getLastSeq()).isEqualTo(30);
        assertThat(restored.getTrimmedSeq()).as("its log starts above the snapshot").isEqualTo(30);
        assertThat(get(replica, "w-29").getOutcome()).isEqualTo(WriteOutcome.FOUND);
        assertThat(get(replica, "w-29").getVersion()).isEqualTo(30);
        assertThat(get(replica, "built-3").getOutcome()).isEqualTo(WriteOutcome.FOUND);
        assertThat(get(replica, "stray").getOutcome()).as("never acknowledged: dropped").isEqualTo(WriteOutcome.NOT_FOUND);
        assertThat(served.get("b").docCount()).as("the restored copy is served").isEqualTo(20 + 30);

        assertThat(answer(replica, request().addOps(upsert("w-30", 31))).getLastSeq()).as("the next write, numbered")
                .isEqualTo(31);
        assertThat(answer(replica, request().addOps(upsert("w-40", 41))).getStatus()).as("a gap is refused")
                .isEqualTo(Status.ERROR);
    }

    @Test
    void aRestoreOfASnapshotThatIsNotThereOrNotThePartitionsFailsAndKeepsTheCopy() {
        answer(replica, writes(0, 3, true));
        WriteResponse missing = answer(replica, request().setSnapshot("partition-0000/node-a-seq-99")
                .setSourceAddress("leaf-a:1").addOps(WriteOp.newBuilder().setKind(WriteKind.RESTORE)));
        assertThat(missing.getStatus()).isEqualTo(Status.ERROR);
        assertThat(missing.getError()).contains("no snapshot partition-0000/node-a-seq-99 here");
        WriteResponse sourceless = answer(replica, request().setSnapshot("partition-0000/node-a-seq-99")
                .addOps(WriteOp.newBuilder().setKind(WriteKind.RESTORE)));
        assertThat(sourceless.getError()).contains("names no source leaf");
        WriteResponse escaping = answer(replica, request().setSnapshot("partition-0000/../../node-b").setSourceAddress("leaf-a:1")
                .addOps(WriteOp.newBuilder().setKind(WriteKind.RESTORE)));
        assertThat(escaping.getStatus()).isEqualTo(Status.ERROR);
        assertThat(escaping.getError()).contains("expected: partition-0000/<leaf>-seq-<n>");
        assertThat(get(replica, "w-2").getOutcome()).isEqualTo(WriteOutcome.FOUND);
        assertThat(Files.isDirectory(dir.resolve("index/live/build-0001/node-b/partition-0000/index"))).isTrue();
    }

    @Test
    void aSnapshotAnotherLeafIsCopyingStaysUntilItsConnectionClosesThoughANewerOneIsMade() throws IOException {
        answer(primary, writes(0, 5, true));
        String older = answer(primary, request().addOps(WriteOp.newBuilder().setKind(WriteKind.SNAPSHOT))).getSnapshot();
        Path olderDir = primary.dir().resolve(LeafSnapshots.DIR).resolve(older);
        SnapshotFiles.Session copying = primary.snapshotSession();
        WriteResponse listed = copying.answer(request().setSnapshot(older)
                .addOps(WriteOp.newBuilder().setKind(WriteKind.LIST_SNAPSHOT)).build());
        assertThat(listed.getStatus()).as(listed.getError()).isEqualTo(Status.OK);
        assertThat(listed.getSnapshotFilesList()).isNotEmpty();

        answer(primary, writes(5, 6, true));
        String newer = answer(primary, request().addOps(WriteOp.newBuilder().setKind(WriteKind.SNAPSHOT))).getSnapshot();
        assertThat(newer).isNotEqualTo(older);
        assertThat(olderDir).as("pinned by the copy in progress").isDirectory();
        String file = listed.getSnapshotFiles(0).getName();
        WriteResponse chunk = copying.answer(request().setSnapshot(older).setFileName(file)
                .addOps(WriteOp.newBuilder().setKind(WriteKind.READ_SNAPSHOT_FILE)).build());
        assertThat(chunk.getStatus()).as(chunk.getError()).isEqualTo(Status.OK);
        assertThat(chunk.getChunk().size()).isEqualTo((int) listed.getSnapshotFiles(0).getLength());

        copying.close();
        assertThat(olderDir).as("dropped once the copy is done").doesNotExist();
        assertThat(primary.dir().resolve(LeafSnapshots.DIR).resolve(newer)).isDirectory();
        WriteResponse unlisted = primary.snapshotSession().answer(request().setSnapshot(newer).setFileName(file)
                .addOps(WriteOp.newBuilder().setKind(WriteKind.READ_SNAPSHOT_FILE)).build());
        assertThat(unlisted.getError()).as("a read needs the snapshot listed (pinned) first")
                .contains("was not listed on this connection");
    }

    /**
     * The race of ebcc8c6: a primary batch of term 2 waits on the copy's lock while a RESTORE (also
     * term 2, decided while this copy was out of sync) swaps the copy. The batch must not record the
     * primary role in the restored copy's directory: that would refuse every later rebuild of it in
     * term 2. The test thread holds the copy's lock (as a long write would), sees the batch blocked on
     * it, and runs the RESTORE, which takes the same lock again (it is reentrant).
     */
    @Test
    void aPrimaryBatchWaitingOnTheCopyAcrossARestoreRecordsNoPrimaryRoleInTheRestoredCopy() throws Exception {
        assertThat(answer(primary, writes(0, 5, true).setPrimaryTerm(1)).getStatus()).isEqualTo(Status.OK);
        String snapshot = answer(primary, request().setPrimaryTerm(1)
                .addOps(WriteOp.newBuilder().setKind(WriteKind.SNAPSHOT))).getSnapshot();
        LivePartition old = replica.openCopy(0);
        CompletableFuture<WriteResponse> batch = new CompletableFuture<>();
        Thread writer = new Thread(() -> batch.complete(answer(replica, writes(0, 1, true).setPrimaryTerm(2))));
        WriteResponse restored;
        synchronized (old) {
            writer.start();
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            while (!waitsOn(threads.getThreadInfo(writer.getId()), old)) {
                Thread.onSpinWait();
            }
            restored = answer(replica, restore(snapshot, 2));
        }
        assertThat(restored.getStatus()).as(restored.getError()).isEqualTo(Status.OK);
        assertThat(batch.get(30, TimeUnit.SECONDS).getStatus()).as("asked of the replaced copy: not acknowledged")
                .isEqualTo(Status.ERROR);
        assertThat(dir.resolve("index/live/build-0001/node-b/partition-0000/" + PrimaryTerms.ROLE_FILE))
                .as("no primary role recorded in the restored copy's directory").doesNotExist();
        WriteResponse again = answer(replica, restore(snapshot, 2));
        assertThat(again.getStatus()).as("a rebuild in term 2 is still allowed: " + again.getError())
                .isEqualTo(Status.OK);
    }

    /**
     * The RESTORE (term 3, which the replica's copy accepts on arrival) deletes the copy's directory, its
     * term fence ({@code primary-term}) with it, and makes it anew: the term the copy accepted is written
     * there again before the restored copy is opened and served, so a leaf that dies at any point after
     * the swap still refuses older terms. Before, it was written after the restore returned, outside the
     * swap: a leaf that died in between came back with no fence (term 0) and took a deposed primary's
     * writes.
     */
    @Test
    void theRestoredCopysTermFenceIsOnDiskBeforeTheCopyIsServed() {
        assertThat(answer(primary, writes(0, 5, true).setPrimaryTerm(3)).getStatus()).isEqualTo(Status.OK);
        String snapshot = answer(primary, request().setPrimaryTerm(3)
                .addOps(WriteOp.newBuilder().setKind(WriteKind.SNAPSHOT))).getSnapshot();
        WriteResponse restored = answer(replica, restore(snapshot, 3));

        assertThat(restored.getStatus()).as(restored.getError()).isEqualTo(Status.OK);
        assertThat(fencedWhenServed).as("the term fence on disk when the restored copy was served").containsOnly(true)
                .isNotEmpty();
        assertThat(answer(replica, request().setPrimaryTerm(2).addOps(WriteOp.newBuilder().setKind(WriteKind.GET)
                .setId("w-1"))).getStatus()).as("an older term refused").isEqualTo(Status.STALE_TERM);
    }

    private Path copyDir(String node) {
        return dir.resolve("index/live/build-0001/node-" + node + "/partition-0000");
    }

    private static boolean waitsOn(ThreadInfo info, Object monitor) {
        return info != null && info.getThreadState() == Thread.State.BLOCKED && info.getLockInfo() != null
                && info.getLockInfo().getIdentityHashCode() == System.identityHashCode(monitor);
    }

    private static WriteRequest.Builder restore(String snapshot, long term) {
        return request().setPrimaryTerm(term).setSnapshot(snapshot).setSourceAddress("leaf-a:1")
                .addOps(WriteOp.newBuilder().setKind(WriteKind.RESTORE));
    }

    private static WriteRequest.Builder request() {
        return WriteRequest.newBuilder().setPartition(0);
    }

    private static WriteRequest.Builder writes(int from, int to, boolean primary) {
        WriteRequest.Builder request = request().setPrimary(primary);
        for (int i = from; i < to; i++) {
            request.addOps(WriteOp.newBuilder().setKind(WriteKind.UPSERT).setId("w-" + i)
                    .addFields(StoredField.newBuilder().setName("title").setValue("written " + i)));
        }
        return request;
    }

    private static WriteOp upsert(String id, long seq) {
        return WriteOp.newBuilder().setKind(WriteKind.UPSERT).setId(id).setSeq(seq)
                .addFields(StoredField.newBuilder().setName("title").setValue(id)).build();
    }

    private static io.hedgerow.common.wire.proto.WriteResult get(LiveWrites writes, String id) {
        return answer(writes, request().addOps(WriteOp.newBuilder().setKind(WriteKind.GET).setId(id))).getResults(0);
    }

    private static WriteResponse answer(LiveWrites writes, WriteRequest.Builder request) {
        return writes.answer(request.build());
    }
}
