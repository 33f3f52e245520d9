package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.Cancel;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.Twin;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A tied request's grace at the leaf (it may not start before its grace has passed, so its twin's
 * cancel can still drop it), and the send time a twin's cancel carries, which its receiver turns
 * into a measured delay. Real leaves over sockets; no outcome depends on how long anything took
 * except the lower bound a grace sets.
 */
@Timeout(60)
class TwinGraceTest {
    private static final String INDEX = "grace";
    private static final int PARTITIONS = 2;
    /** Longer than any test: a twin with it only leaves the queue by a cancel. */
    private static final Duration FOREVER = Duration.ofSeconds(60);

    @RegisterExtension
    static final RealLeaves leaves = RealLeaves.hedgerowIndex(INDEX, PARTITIONS).firstRequestId(1);

    @Test
    void aTwinWaitsOutItsGraceAndItsTwinsCancelDropsItMeanwhile() throws IOException {
        LeafServer leaf = start();
        FrameSocket root = leaves.root(leaf);
        SearchRequest twin = request().toBuilder().setTwin(Twin.newBuilder().setLeafAddress("127.0.0.1:1")
                .setRequestId(leaves.nextRequestId()).setGraceNanos(FOREVER.toNanos())).build();
        root.send(frame(twin));
        // An idle leaf answers a plain request at once; the twin, read before it, waits its grace.
        SearchRequest plain = request();
        assertThat(RealLeaves.search(root, plain).getStatus()).isEqualTo(Status.OK);

        FrameSocket peer = leaves.peer(leaf);
        peer.send(Frame.newBuilder().setCancel(Cancel.newBuilder().setRequestId(twin.getRequestId()).setIfQueued(true)
                .setRootId(FrameSocket.ROOT_ID)).build());

        SearchResponse dropped = root.receive().getResult();
        assertThat(dropped.getRequestId()).isEqualTo(twin.getRequestId());
        assertThat(dropped.getStatus()).isEqualTo(Status.CANCELLED);
        LeafCounters.Snapshot counters = leaf.counters().snapshot();
        assertThat(counters.twinGraceWaits()).isEqualTo(1);
        assertThat(counters.twinCancelsDroppedQueued()).isEqualTo(1);
        assertThat(counters.twinCancelsSent() + counters.twinCancelSendFailures()).as("it never started").isZero();
    }

    @Test
    void aTwinStartsNoSoonerThanItsGrace() throws IOException {
        LeafServer leaf = start();
        FrameSocket root = leaves.root(leaf);
        Duration grace = Duration.ofMillis(120);
        SearchResponse answer = RealLeaves.search(root, request().toBuilder().setTwin(Twin.newBuilder()
                .setLeafAddress("127.0.0.1:1").setRequestId(leaves.nextRequestId()).setGraceNanos(grace.toNanos())).build());

        assertThat(answer.getStatus()).isEqualTo(Status.OK);
        assertThat(answer.getQueueNanos()).as("from arrival to start, as the leaf measured it")
                .isGreaterThanOrEqualTo(grace.toNanos());
    }

    @Test
    void aTiedRequestThatStartsCancelsItsTwinWhileTheTwinWaitsOutItsGraceAndTheDelayIsMeasured() throws IOException {
        LeafServer first = start();
        LeafServer second = start();
        List<String> cluster = List.of(first.address(), second.address());
        FrameSocket toFirst = TestLeaves.root(first, leaves.sockets(), FrameSocket.ROOT_ID, INDEX, PARTITIONS, cluster);
        FrameSocket toSecond = TestLeaves.root(second, leaves.sockets(), FrameSocket.ROOT_ID, INDEX, PARTITIONS, cluster);
        long firstId = leaves.nextRequestId();
        long secondId = leaves.nextRequestId();
        // The copy sent second waits a grace; the first copy starts at once on its idle leaf.
        toSecond.send(frame(request().toBuilder().setRequestId(secondId).setTwin(Twin.newBuilder()
                .setLeafAddress(first.address()).setRequestId(firstId).setGraceNanos(FOREVER.toNanos())).build()));
        assertThat(RealLeaves.search(toSecond, request()).getStatus()).isEqualTo(Status.OK); // the twin is registered
        toFirst.send(frame(request().toBuilder().setRequestId(firstId).setTwin(Twin.newBuilder()
                .setLeafAddress(second.address()).setRequestId(secondId)).build()));

        assertThat(toFirst.receive().getResult().getStatus()).isEqualTo(Status.OK);
        SearchResponse dropped = toSecond.receive().getResult();
        assertThat(dropped.getRequestId()).isEqualTo(secondId);
        assertThat(dropped.getStatus()).isEqualTo(Status.CANCELLED);

        await(second, LeafCounters.Snapshot::twinCancelDelays, 1);
        LeafCounters.Snapshot atSecond = second.counters().snapshot();
        assertThat(atSecond.twinCancelDelaysNegative()).as("one clock: never negative").isZero();
        assertThat(atSecond.twinCancelDelayMaxMicros()).as("measured, and within the test's life")
                .isBetween(0L, Duration.ofSeconds(30).toNanos() / 1_000);
        assertThat(atSecond.describe()).contains("twin cancel delay p50 ", "over 1 (clock skew 0)");
        assertThat(first.counters().snapshot().twinCancelsSent()).isEqualTo(1);
    }

    // ------------------------------------------------------------------ helpers

    private LeafServer start() throws IOException {
        return leaves.start(leaves.config().withWorkers(1));
    }

    private SearchRequest request() {
        return SearchRequest.newBuilder().setRequestId(leaves.nextRequestId()).setPartition(0).setQuery("body:meadow").setK(3)
                .build();
    }

    private static Frame frame(SearchRequest request) {
        return Frame.newBuilder().setSearch(request).build();
    }

    private static void await(LeafServer leaf, ToLongFunction<LeafCounters.Snapshot> counter, long value) {
        Eventually.await(() -> counter.applyAsLong(leaf.counters().snapshot()) >= value, "a counter to reach " + value);
    }
}
