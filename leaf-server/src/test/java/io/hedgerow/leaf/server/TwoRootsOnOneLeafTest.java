package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.Cancel;
import io.hedgerow.common.wire.proto.FaultKind;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.InjectFault;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.leaf.index.PartitionStore;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two roots on one leaf giving their requests the same ids, as two roots (or a root and its
 * restarted self) do: the leaf knows a request by root and id, so a cancel, a twin's cancel or a
 * closing connection touches only the requests of the root it names. The leaf's only worker is held
 * by an injected stall, so what is queued is known exactly; outcomes are read from answers.
 */
class TwoRootsOnOneLeafTest {
    private static final String INDEX = "two-roots";
    private static final int PARTITIONS = 2;
    private static final long ROOT_A = 0xA11CEL;
    private static final long ROOT_B = 0xB0BL;
    private static final Duration HOLD = Duration.ofSeconds(50);

    @TempDir
    static Path indexParent;

    private static PartitionStore store;

    private final List<Socket> sockets = new ArrayList<>();
    private LeafServer leaf;
    private FrameSocket rootA;
    private FrameSocket rootB;

    @BeforeAll
    static void buildIndex() throws IOException {
        store = TestLeaves.hedgerowIndex(indexParent.resolve(INDEX), INDEX, PARTITIONS);
    }

    @BeforeEach
    void start() throws IOException {
        leaf = LeafServer.start(LeafConfig.defaults(store.dir()).withWorkers(1).withFaultInjection(true));
        rootA = TestLeaves.root(leaf, sockets, ROOT_A, INDEX, PARTITIONS);
        rootB = TestLeaves.root(leaf, sockets, ROOT_B, INDEX, PARTITIONS);
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket socket : sockets) {
            socket.close();
        }
        leaf.close();
    }

    @Test
    void aCancelAndATwinsCancelTouchOnlyTheRequestOfTheRootTheyName() throws IOException {
        holdTheWorker(rootA, 1);
        for (FrameSocket root : List.of(rootA, rootB)) {
            root.send(search(7));
            root.send(search(8));
            barrier(root); // frames of one connection are read in order: both are queued now
        }

        rootA.send(Frame.newBuilder().setCancel(Cancel.newBuilder().setRequestId(7)).build());
        SearchResponse cancelledAtA = rootA.receive().getResult();
        assertThat(cancelledAtA.getRequestId()).isEqualTo(7);
        assertThat(cancelledAtA.getStatus()).isEqualTo(Status.CANCELLED);

        FrameSocket peer = TestLeaves.peer(leaf, sockets);
        peer.send(Frame.newBuilder().setCancel(Cancel.newBuilder().setRequestId(8).setIfQueued(true).setRootId(ROOT_B))
                .build());
        SearchResponse cancelledAtB = rootB.receive().getResult();
        assertThat(cancelledAtB.getRequestId()).isEqualTo(8);
        assertThat(cancelledAtB.getStatus()).isEqualTo(Status.CANCELLED);

        release(rootA);
        assertThat(answers(rootA, 2)).as("A's filler, then A's 8; its 7 was cancelled")
                .containsExactly("1 OK", "8 OK");
        assertThat(answers(rootB, 1)).as("B's 7 ran; its 8 was cancelled").containsExactly("7 OK");
        LeafCounters.Snapshot counters = leaf.counters().snapshot();
        assertThat(counters.rootCancelsDroppedQueued()).isEqualTo(1);
        assertThat(counters.twinCancelsDroppedQueued()).isEqualTo(1);
    }

    @Test
    void aRootThatGoesAwayTakesOnlyItsOwnRequestsWithIt() throws IOException {
        holdTheWorker(rootB, 1);
        rootA.send(search(9));
        barrier(rootA);
        rootB.send(search(9));
        barrier(rootB);
        assertThat(leaf.queued()).isEqualTo(2);

        sockets.get(0).close(); // root A's connection
        Eventually.await(() -> leaf.queued() == 1, "A's request to leave the queue");

        release(rootB);
        assertThat(answers(rootB, 2)).containsExactly("1 OK", "9 OK");
    }

    @Test
    void aTwinsCancelForARequestNotYetArrivedWaitsForThatRootsRequestOnly() throws IOException {
        FrameSocket peer = TestLeaves.peer(leaf, sockets);
        peer.send(Frame.newBuilder().setCancel(Cancel.newBuilder().setRequestId(5).setIfQueued(true).setRootId(ROOT_B))
                .build());
        await(LeafCounters.Snapshot::twinCancelsRemembered, 1);

        rootA.send(tied(5));
        assertThat(answers(rootA, 1)).as("A's tied 5 is not the one cancelled").containsExactly("5 OK");
        rootB.send(tied(5));
        assertThat(answers(rootB, 1)).containsExactly("5 CANCELLED");
    }

    // ------------------------------------------------------------------ helpers

    /** Stalls the leaf and waits until its only worker holds a filler, request {@code fillerId} of {@code root}. */
    private void holdTheWorker(FrameSocket root, long fillerId) throws IOException {
        assertThat(inject(root, HOLD, HOLD.plusSeconds(1))).isEmpty();
        root.send(search(fillerId));
        await(LeafCounters.Snapshot::stallHolds, 1);
    }

    private void release(FrameSocket root) throws IOException {
        assertThat(inject(root, Duration.ZERO, Duration.ZERO)).isEmpty();
    }

    /** A round trip on {@code root}'s connection: everything it sent before has been read. */
    private static void barrier(FrameSocket root) throws IOException {
        root.send(Frame.newBuilder().setInject(InjectFault.newBuilder().setRequestId(0).setKind(FaultKind.DELAY)).build());
        assertThat(root.receive().getInjectAck().getError()).isEmpty();
    }

    private static String inject(FrameSocket root, Duration stall, Duration period) throws IOException {
        root.send(Frame.newBuilder().setInject(InjectFault.newBuilder().setRequestId(0).setKind(FaultKind.STALL)
                .setDelayNanos(stall.toNanos()).setPeriodNanos(period.toNanos())
                .setDurationNanos(Duration.ofMinutes(1).toNanos())).build());
        return root.receive().getInjectAck().getError();
    }

    private static Frame search(long requestId) {
        return Frame.newBuilder().setSearch(SearchRequest.newBuilder().setRequestId(requestId).setPartition(0)
                .setQuery("body:meadow").setK(3)).build();
    }

    private static Frame tied(long requestId) {
        return Frame.newBuilder().setSearch(search(requestId).getSearch().toBuilder()
                .setTwin(io.hedgerow.common.wire.proto.Twin.newBuilder().setLeafAddress("127.0.0.1:1")
                        .setRequestId(requestId + 1))).build();
    }

    /** The next {@code count} answers on {@code root}, as "id STATUS". */
    private static List<String> answers(FrameSocket root, int count) throws IOException {
        List<String> answers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            SearchResponse answer = root.receive().getResult();
            answers.add(answer.getRequestId() + " " + answer.getStatus());
        }
        return answers;
    }

    private void await(ToLongFunction<LeafCounters.Snapshot> counter, long value) {
        Eventually.await(() -> counter.applyAsLong(leaf.counters().snapshot()) >= value, "a counter to reach " + value);
    }
}
