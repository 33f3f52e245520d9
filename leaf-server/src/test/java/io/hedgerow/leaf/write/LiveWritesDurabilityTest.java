package io.hedgerow.leaf.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.StoredField;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteOutcome;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.common.wire.proto.WriteResult;
import io.hedgerow.leaf.search.IndexContext;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leaf's live writes, driven through the write requests the root sends ({@link LiveWrites#answer}
 * on the test's thread, no sockets): a replica never acknowledges an op it does not hold under its
 * seq, a log read never answers "nothing" to a requester ahead, nor more than a few MiB, an op Lucene
 * would refuse is refused before it is logged, and an unnamed leaf finds its copies on another port.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LiveWritesDurabilityTest {
    @TempDir
    Path dir;
    private IndexContext index;
    private Path buildLive;
    private final List<LiveWrites> started = new ArrayList<>();

    @BeforeEach
    void build() throws IOException {
        index = BuiltIndex.build(dir, "durable", 5);
        buildLive = BuiltIndex.liveDir(index);
    }

    private LiveWrites start(LiveSettings settings, int port) {
        LiveWrites writes = new LiveWrites(index, settings, (partition, searcher) -> { }, partition -> partition == 0);
        writes.start(buildLive, port);
        started.add(writes);
        return writes;
    }

    private LiveWrites start(String node) {
        return start(LiveSettings.defaults().withNodeId(node), 0);
    }

    @AfterEach
    void stop() {
        started.forEach(LiveWrites::close);
    }

    @Test
    void aReplicaAcknowledgesASeqItHoldsOnlyForTheSameOpAndRefusesAnotherAsDiverged() {
        LiveWrites replica = start("r");
        assertThat(answer(replica, request().addOps(upsert("a", 1, "first"))).getStatus()).isEqualTo(Status.OK);

        assertThat(answer(replica, request().addOps(upsert("a", 1, "first"))).getStatus())
                .as("a resend of the same op").isEqualTo(Status.OK);
        WriteResponse other = answer(replica, request().addOps(upsert("b", 1, "another")));
        assertThat(other.getStatus()).isEqualTo(Status.ERROR);
        assertThat(other.getError()).startsWith(LivePartition.DIVERGED).contains("seq 1");
        WriteResponse inBatch = answer(replica, request().addOps(upsert("c", 2, "c")).addOps(upsert("d", 2, "d")));
        assertThat(inBatch.getStatus()).as("a seq twice in one batch, two ops").isEqualTo(Status.ERROR);
        assertThat(get(replica, "b").getOutcome()).isEqualTo(WriteOutcome.NOT_FOUND);
        assertThat(get(replica, "c").getOutcome()).as("nothing of the refused batch").isEqualTo(WriteOutcome.NOT_FOUND);
        assertThat(get(replica, "a").getFieldsList()).extracting(StoredField::getValue).contains("first");
    }

    @Test
    void aLogReadFromAboveTheLastSeqAnswersDivergedNotAnEmptyLog() {
        LiveWrites source = start("s");
        WriteResponse noCopy = answer(source, readLog(2));
        assertThat(noCopy.getStatus()).as("no copy here yet: the requester is ahead too").isEqualTo(Status.ERROR);
        assertThat(noCopy.getError()).startsWith(LivePartition.DIVERGED);
        assertThat(answer(source, writes(0, 3)).getLastSeq()).isEqualTo(3);

        WriteResponse ahead = answer(source, readLog(5));
        assertThat(ahead.getStatus()).isEqualTo(Status.ERROR);
        assertThat(ahead.getError()).startsWith(LivePartition.DIVERGED).contains("requester is ahead");

        WriteResponse probe = answer(source, readLog(Long.MAX_VALUE));
        assertThat(probe.getStatus()).as("the root's probe still answers the seqs").isEqualTo(Status.OK);
        assertThat(probe.getLastSeq()).isEqualTo(3);
        assertThat(answer(source, readLog(3)).getLogCount()).as("caught up: nothing to send").isZero();
        assertThat(answer(source, readLog(1)).getLogList()).extracting(WriteOp::getSeq).containsExactly(2L, 3L);
    }

    @Test
    void logReadsAreCappedInBytesSoAReplicaFarBehindCatchesUpInSeveralReads() {
        LiveWrites source = start("s");
        String text = "lorem ipsum ".repeat(350); // about 4 KB a document: 10 MB in all
        for (int from = 0; from < 2500; from += 500) {
            WriteRequest.Builder batch = request().setPrimary(true);
            for (int i = from; i < from + 500; i++) {
                batch.addOps(WriteOp.newBuilder().setKind(WriteKind.UPSERT).setId("w-" + i)
                        .addFields(StoredField.newBuilder().setName("title").setValue(text + i)));
            }
            assertThat(answer(source, batch).getStatus()).isEqualTo(Status.OK);
        }
        LiveWrites replica = start("r");
        long from = 0;
        int reads = 0;
        while (from < 2500) {
            WriteResponse log = answer(source, readLog(from));
            assertThat(log.getStatus()).as(log.getError()).isEqualTo(Status.OK);
            assertThat(log.getSerializedSize()).as("a frame's worth at most").isLessThan(5 * 1024 * 1024);
            assertThat(log.getLogCount()).isPositive();
            WriteResponse applied = answer(replica, request().addAllOps(log.getLogList()));
            assertThat(applied.getStatus()).as(applied.getError()).isEqualTo(Status.OK);
            from = log.getLog(log.getLogCount() - 1).getSeq();
            reads++;
        }
        assertThat(reads).isGreaterThan(2);
        assertThat(get(replica, "w-2499").getOutcome()).isEqualTo(WriteOutcome.FOUND);
    }

    @Test
    void anOpLargerThanTheReadCapGoesAloneAndOneLargerThanAnyFrameIsRefusedAtWriteTime() {
        LiveWrites source = start("s");
        String big = "x".repeat(5 * 1024 * 1024);
        assertThat(answer(source, request().setPrimary(true).addOps(upsert("big", 0, big)).addOps(upsert("small", 0, "s")))
                .getStatus()).isEqualTo(Status.OK);
        assertThat(answer(source, readLog(0)).getLogList()).extracting(WriteOp::getId).containsExactly("big");
        assertThat(answer(source, readLog(1)).getLogList()).extracting(WriteOp::getId).containsExactly("small");

        WriteResponse huge = answer(source, request().setPrimary(true)
                .addOps(upsert("huge", 0, "x".repeat(OpChecks.MAX_OP_BYTES + 1))));
        assertThat(huge.getStatus()).isEqualTo(Status.OK);
        assertThat(huge.getResults(0).getOutcome()).isEqualTo(WriteOutcome.REJECTED);
        assertThat(huge.getResults(0).getError()).contains("expected: at most " + OpChecks.MAX_OP_BYTES);
        assertThat(huge.getLastSeq()).as("nothing logged").isEqualTo(2);
    }

    @Test
    void anOpLuceneWouldRefuseIsRefusedBeforeItIsLoggedSoTheCopyStillOpens() {
        LiveWrites replica = start("r");
        WriteResponse refused = answer(replica, request().addOps(upsert("i".repeat(40_000), 1, "too long an id")));
        assertThat(refused.getStatus()).isEqualTo(Status.ERROR);
        assertThat(refused.getError()).contains("bytes long in UTF-8");
        replica.close();

        LiveWrites again = start("r");
        WriteResponse next = answer(again, request().addOps(upsert("fine", 1, "fine")));
        assertThat(next.getStatus()).as(next.getError()).isEqualTo(Status.OK);
        assertThat(next.getLastSeq()).isEqualTo(1);
        assertThat(get(again, "fine").getOutcome()).isEqualTo(WriteOutcome.FOUND);
    }

    @Test
    void aLeafWithoutANameFindsItsCopiesWhenStartedAgainOnAnotherPort() {
        LiveWrites first = start(LiveSettings.defaults(), 7001);
        assertThat(answer(first, writes(0, 3)).getLastSeq()).isEqualTo(3);
        LiveWrites neighbour = start(LiveSettings.defaults(), 7002);
        assertThat(neighbour.dir()).as("two unnamed leaves at once: two directories").isNotEqualTo(first.dir());
        neighbour.close();
        first.close();

        LiveWrites restarted = start(LiveSettings.defaults(), 7003);
        assertThat(answer(restarted, readLog(Long.MAX_VALUE)).getLastSeq()).isEqualTo(3);
        assertThat(get(restarted, "w-2").getOutcome()).isEqualTo(WriteOutcome.FOUND);
    }

    private static WriteRequest.Builder request() {
        return WriteRequest.newBuilder().setPartition(0);
    }

    private static WriteRequest.Builder readLog(long fromSeq) {
        return request().setFromSeq(fromSeq).addOps(WriteOp.newBuilder().setKind(WriteKind.READ_LOG));
    }

    private static WriteRequest.Builder writes(int from, int to) {
        WriteRequest.Builder request = request().setPrimary(true);
        for (int i = from; i < to; i++) {
            request.addOps(upsert("w-" + i, 0, "written " + i));
        }
        return request;
    }

    private static WriteOp upsert(String id, long seq, String title) {
        return WriteOp.newBuilder().setKind(WriteKind.UPSERT).setId(id).setSeq(seq)
                .addFields(StoredField.newBuilder().setName("title").setValue(title)).build();
    }

    private static WriteResult get(LiveWrites writes, String id) {
        return answer(writes, request().addOps(WriteOp.newBuilder().setKind(WriteKind.GET).setId(id))).getResults(0);
    }

    private static WriteResponse answer(LiveWrites writes, WriteRequest.Builder request) {
        return writes.answer(request.build());
    }
}
