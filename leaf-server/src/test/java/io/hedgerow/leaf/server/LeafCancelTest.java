package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.Cancel;
import io.hedgerow.common.wire.proto.DelayDistribution;
import io.hedgerow.common.wire.proto.FaultKind;
import io.hedgerow.common.wire.proto.FetchItem;
import io.hedgerow.common.wire.proto.FetchRequest;
import io.hedgerow.common.wire.proto.FetchResponse;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.InjectFault;
import io.hedgerow.common.wire.proto.InjectFaultAck;
import io.hedgerow.common.wire.proto.Priority;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.Twin;
import io.hedgerow.leaf.fault.InjectedDelay;
import io.hedgerow.leaf.fault.InjectedStall;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Cancels, tied requests, deadlines and stalls at the leaf, over real sockets: real {@link LeafServer}s
 * with one worker each, plain sockets playing the root. The only worker is held by an injected delay
 * (a running task) or an injected stall (a task not yet started), so which tasks are queued and which
 * run is known exactly; outcomes are checked by answers and counters, never by how long anything took.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class LeafCancelTest {
    private static final String INDEX = "cancels";
    private static final int PARTITIONS = 2;
    /** Long enough that nothing in a test outlasts it: holds end by a cancel, a clear or a deadline. */
    private static final Duration HOLD = Duration.ofSeconds(50);

    @RegisterExtension
    static final RealLeaves leaves = RealLeaves.hedgerowIndex(INDEX, PARTITIONS);

    /** Twin addresses the assignment names as the cluster's leaves, besides the leaves started here. */
    private final List<String> extraPeers = new ArrayList<>();

    // ------------------------------------------------------------------ a root's cancel

    @Test
    void aRootCancelOfAQueuedTaskIsAnsweredCancelledAndTheTaskNeverRuns() throws IOException {
        LeafServer leaf = start();
        FrameSocket root = connect(leaf);
        assertThat(injectDelay(root, HOLD).getError()).isEmpty();
        SearchRequest running = request(0);
        root.send(frame(running));
        awaitCounter(leaf, LeafCounters.Snapshot::delaysInjected, 1); // the only worker holds it
        SearchRequest queued = request(1);
        root.send(frame(queued));

        root.send(cancel(queued.getRequestId(), false));
        SearchResponse cancelled = root.receive().getResult();

        assertThat(cancelled.getRequestId()).isEqualTo(queued.getRequestId());
        assertThat(cancelled.getPartition()).isEqualTo(1);
        assertThat(cancelled.getStatus()).isEqualTo(Status.CANCELLED);
        assertThat(cancelled.getHitsList()).isEmpty();
        assertThat(leaf.counters().snapshot().rootCancelsDroppedQueued()).isEqualTo(1);

        // The running one stops at its next check and answers what it has, cut short.
        root.send(cancel(running.getRequestId(), false));
        SearchResponse cut = root.receive().getResult();
        assertThat(cut.getRequestId()).isEqualTo(running.getRequestId());
        assertThat(cut.getStatus()).isEqualTo(Status.OK);
        assertThat(cut.getCutShort()).isTrue();

        // The worker passes the dropped task by: the next answer is the next request's, not a second one for it.
        assertThat(injectDelay(root, Duration.ZERO).getError()).isEmpty();
        SearchRequest next = request(0);
        root.send(frame(next));
        SearchResponse answered = root.receive().getResult();
        assertThat(answered.getRequestId()).isEqualTo(next.getRequestId());
        assertThat(answered.getStatus()).isEqualTo(Status.OK);
        assertThat(answered.getCutShort()).isFalse();

        root.send(cancel(next.getRequestId(), false)); // answered already
        root.send(cancel(987_654_321L, false)); // never seen
        awaitCounter(leaf, LeafCounters.Snapshot::rootCancelsReceived, 4);
        LeafCounters.Snapshot counters = leaf.counters().snapshot();
        assertThat(counters.rootCancelsDroppedQueued()).isEqualTo(1);
        assertThat(counters.rootCancelsStoppedRunning()).isEqualTo(1);
        assertThat(counters.rootCancelsTooLate()).isEqualTo(2);
        assertThat(counters.delaysInjected()).as("the dropped task was never taken to run").isEqualTo(1);
    }

    @Test
    void aRootCancelOfAQueuedFetchIsAnsweredCancelled() throws IOException {
        LeafServer leaf = start();
        FrameSocket root = connect(leaf);
        assertThat(injectDelay(root, HOLD).getError()).isEmpty();
        root.send(frame(request(0)));
        awaitCounter(leaf, LeafCounters.Snapshot::delaysInjected, 1);
        long fetchId = leaves.nextRequestId();
        root.send(Frame.newBuilder().setFetch(FetchRequest.newBuilder().setRequestId(fetchId).setQuery("body:meadow")
                .setStoredFields(true).addItems(FetchItem.newBuilder().setPartition(0).setDoc(0))).build());

        root.send(cancel(fetchId, false));
        FetchResponse cancelled = root.receive().getFetchResult();

        assertThat(cancelled.getRequestId()).isEqualTo(fetchId);
        assertThat(cancelled.getStatus()).isEqualTo(Status.CANCELLED);
        assertThat(cancelled.getDocsList()).isEmpty();
    }

    // ------------------------------------------------------------------ tied requests

    @Test
    void aTwinThatStartsDropsItsQueuedTwinOnAnotherLeafWhichAnswersCancelledToItsRoot() throws IOException {
        LeafServer first = start();
        LeafServer second = start();
        FrameSocket toFirst = connect(first);
        FrameSocket toSecond = connect(second);
        // The second leaf's only worker is stalled on a filler, so whatever comes next waits in its queue.
        assertThat(injectStall(toSecond, HOLD, HOLD.plusSeconds(1)).getError()).isEmpty();
        SearchRequest filler = request(0);
        toSecond.send(frame(filler));
        awaitCounter(second, LeafCounters.Snapshot::stallHolds, 1);

        long firstId = leaves.nextRequestId();
        long secondId = leaves.nextRequestId();
        SearchRequest twinAtSecond = request(1).toBuilder().setRequestId(secondId)
                .setTwin(Twin.newBuilder().setLeafAddress(first.address()).setRequestId(firstId)).build();
        SearchRequest twinAtFirst = request(1).toBuilder().setRequestId(firstId)
                .setTwin(Twin.newBuilder().setLeafAddress(second.address()).setRequestId(secondId)).build();
        toSecond.send(frame(twinAtSecond));
        // Frames of one connection are read in order: once this is acknowledged, the twin is queued.
        assertThat(injectDelay(toSecond, Duration.ZERO).getError()).isEmpty();
        toFirst.send(frame(twinAtFirst));

        SearchResponse ran = toFirst.receive().getResult();
        assertThat(ran.getRequestId()).isEqualTo(firstId);
        assertThat(ran.getStatus()).isEqualTo(Status.OK);
        assertThat(ran.getHitsList()).isNotEmpty();
        SearchResponse dropped = toSecond.receive().getResult();
        assertThat(dropped.getRequestId()).as("answered on the root's connection, not the peer's").isEqualTo(secondId);
        assertThat(dropped.getStatus()).isEqualTo(Status.CANCELLED);
        assertThat(dropped.getPartition()).isEqualTo(1);

        assertThat(first.counters().snapshot().twinCancelsSent()).isEqualTo(1);
        assertThat(first.twinPeersConnected()).isEqualTo(1);
        LeafCounters.Snapshot atSecond = second.counters().snapshot();
        assertThat(atSecond.twinCancelsReceived()).isEqualTo(1);
        assertThat(atSecond.twinCancelsDroppedQueued()).isEqualTo(1);
        assertThat(atSecond.twinCancelsBothRan()).isZero();

        // Released, the second leaf runs the filler and then passes the dropped twin by.
        assertThat(injectStall(toSecond, Duration.ZERO, Duration.ZERO).getError()).isEmpty();
        assertThat(toSecond.receive().getResult().getRequestId()).isEqualTo(filler.getRequestId());
        SearchRequest next = request(0);
        toSecond.send(frame(next));
        assertThat(toSecond.receive().getResult().getRequestId()).isEqualTo(next.getRequestId());
        assertThat(second.counters().snapshot().twinCancelsSent()).as("the dropped twin never started").isZero();
    }

    @Test
    void aTwinsCancelLeavesARunningSearchAlone() throws IOException {
        LeafServer leaf = start();
        FrameSocket root = connect(leaf);
        FrameSocket peer = connectPeer(leaf);
        assertThat(injectDelay(root, HOLD).getError()).isEmpty();
        SearchRequest running = request(0);
        root.send(frame(running));
        awaitCounter(leaf, LeafCounters.Snapshot::delaysInjected, 1);

        peer.send(twinCancel(running.getRequestId()));
        awaitCounter(leaf, LeafCounters.Snapshot::twinCancelsBothRan, 1); // counted after "received"
        assertThat(leaf.counters().snapshot().twinCancelsReceived()).isEqualTo(1);

        assertThat(injectDelay(root, Duration.ZERO).getError()).isEmpty(); // releases the hold
        SearchResponse answer = root.receive().getResult();
        assertThat(answer.getRequestId()).isEqualTo(running.getRequestId());
        assertThat(answer.getStatus()).isEqualTo(Status.OK);
        assertThat(answer.getCutShort()).as("not stopped by an if_queued cancel").isFalse();
        assertThat(answer.getHitsList()).isNotEmpty();
        assertThat(leaf.counters().snapshot().twinCancelsDroppedQueued()).isZero();
    }

    @Test
    void aTwinsCancelThatComesBeforeItsRequestDropsTheRequestOnArrival() throws IOException {
        LeafServer leaf = start();
        FrameSocket root = connect(leaf);
        FrameSocket peer = connectPeer(leaf);
        long id = leaves.nextRequestId();

        peer.send(twinCancel(id));
        awaitCounter(leaf, LeafCounters.Snapshot::twinCancelsRemembered, 1);
        root.send(frame(request(0).toBuilder().setRequestId(id)
                .setTwin(Twin.newBuilder().setLeafAddress("127.0.0.1:1").setRequestId(id + 1)).build()));

        SearchResponse answer = root.receive().getResult();
        assertThat(answer.getRequestId()).isEqualTo(id);
        assertThat(answer.getStatus()).isEqualTo(Status.CANCELLED);
        LeafCounters.Snapshot counters = leaf.counters().snapshot();
        assertThat(counters.tombstonedDrops()).isEqualTo(1);
        assertThat(counters.twinCancelsSent() + counters.twinCancelSendFailures()).as("it never started").isZero();

        // The tombstone is used up; a request without a twin never looks for one.
        SearchRequest untied = request(0);
        peer.send(twinCancel(untied.getRequestId()));
        awaitCounter(leaf, LeafCounters.Snapshot::twinCancelsRemembered, 2);
        assertThat(search(root, untied).getStatus()).isEqualTo(Status.OK);
    }

    @Test
    void countsACancelToATwinLeafThatCannotBeReachedAndStillAnswers() throws IOException {
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0)) {
            closedPort = probe.getLocalPort();
        }
        LeafServer leaf = start();
        extraPeers.addAll(List.of("127.0.0.1:" + closedPort, "no-port-here"));
        FrameSocket root = connect(leaf);

        SearchResponse answer = search(root, request(0).toBuilder()
                .setTwin(Twin.newBuilder().setLeafAddress("127.0.0.1:" + closedPort).setRequestId(5)).build());
        assertThat(answer.getStatus()).isEqualTo(Status.OK);
        awaitCounter(leaf, LeafCounters.Snapshot::twinCancelSendFailures, 1);

        SearchResponse badAddress = search(root, request(0).toBuilder()
                .setTwin(Twin.newBuilder().setLeafAddress("no-port-here").setRequestId(6)).build());
        assertThat(badAddress.getStatus()).isEqualTo(Status.OK);
        awaitCounter(leaf, LeafCounters.Snapshot::twinCancelSendFailures, 2);
        assertThat(leaf.counters().snapshot().twinCancelsSent()).isZero();
    }

    @Test
    void sendsNoCancelToATwinAddressOutsideTheClusterItsRootNamed() throws IOException {
        LeafServer leaf = start();
        LeafServer other = start();
        FrameSocket root = connect(leaf);
        int outside;
        try (ServerSocket probe = new ServerSocket(0)) {
            outside = probe.getLocalPort();
        }

        SearchResponse answer = search(root, tiedTo("127.0.0.1:" + outside));
        assertThat(answer.getStatus()).as("served, without the twin's cancel").isEqualTo(Status.OK);
        assertThat(leaf.counters().twinsOutsideCluster()).isEqualTo(1);
        assertThat(leaf.counters().snapshot().twinCancelSendFailures()).as("never dialled").isZero();

        assertThat(search(root, tiedTo(other.address())).getStatus()).isEqualTo(Status.OK);
        awaitCounter(other, LeafCounters.Snapshot::twinCancelsReceived, 1);
        assertThat(leaf.counters().twinsOutsideCluster()).as("a cluster leaf is dialled").isEqualTo(1);
    }

    @Test
    void reconnectsToATwinLeafWhoseConnectionClosed() throws IOException {
        LeafServer first = start();
        LeafServer second = start();
        int secondPort = second.port();
        FrameSocket root = connect(first);
        assertThat(search(root, tiedTo(second.address())).getStatus()).isEqualTo(Status.OK);
        awaitCounter(second, LeafCounters.Snapshot::twinCancelsReceived, 1);

        second.close();
        leaves.forget(second);
        Eventually.await(() -> first.twinPeersConnected() == 0, "the first leaf sees the connection close");
        LeafServer again = start(leaves.config().withWorkers(1).withFaultInjection(true).withPort(secondPort));

        assertThat(search(root, tiedTo(again.address())).getStatus()).isEqualTo(Status.OK);
        awaitCounter(again, LeafCounters.Snapshot::twinCancelsReceived, 1);
        assertThat(first.counters().snapshot().twinCancelsSent()).isEqualTo(2);
        assertThat(first.counters().snapshot().twinCancelSendFailures()).isZero();
    }

    // ------------------------------------------------------------------ deadlines

    @Test
    void aRequestWhoseDeadlinePassedInTheQueueIsAnsweredExpiredAndNeverExecuted() throws IOException {
        LeafServer leaf = start();
        LeafServer twinLeaf = start();
        FrameSocket root = connect(leaf);
        assertThat(injectDelay(root, HOLD).getError()).isEmpty();
        root.send(frame(request(0)));
        awaitCounter(leaf, LeafCounters.Snapshot::delaysInjected, 1);
        // One nanosecond of budget: gone by the time the worker is free, however fast the machine.
        SearchRequest expiring = tiedTo(twinLeaf.address()).toBuilder().setBudgetNanos(1).build();
        root.send(frame(expiring));

        assertThat(injectDelay(root, Duration.ZERO).getError()).isEmpty();
        assertThat(root.receive().getResult().getStatus()).as("the held one").isEqualTo(Status.OK);
        SearchResponse expired = root.receive().getResult();

        assertThat(expired.getRequestId()).isEqualTo(expiring.getRequestId());
        assertThat(expired.getStatus()).isEqualTo(Status.EXPIRED);
        assertThat(expired.getHitsList()).isEmpty();
        LeafCounters.Snapshot counters = leaf.counters().snapshot();
        assertThat(counters.expiredAtDequeue()).isEqualTo(1);
        assertThat(counters.twinCancelsSent() + counters.twinCancelSendFailures())
                .as("an expired request does not start, so it does not cancel its twin").isZero();
    }

    // ------------------------------------------------------------------ stalls

    @Test
    void aStallHoldsTheWorkerBeforeItStartsAndACancelDropsTheHeldTask() throws IOException {
        LeafServer leaf = start();
        FrameSocket root = connect(leaf);
        InjectFaultAck ack = injectStall(root, HOLD, HOLD.plusSeconds(1));
        assertThat(ack.getError()).isEmpty();
        assertThat(leaf.injectedStall()).contains(InjectedStall.of(HOLD, HOLD.plusSeconds(1), Duration.ofMinutes(1)));
        SearchRequest held = request(0);
        root.send(frame(held));
        awaitCounter(leaf, LeafCounters.Snapshot::stallHolds, 1);

        root.send(cancel(held.getRequestId(), false));
        SearchResponse answer = root.receive().getResult();

        assertThat(answer.getRequestId()).isEqualTo(held.getRequestId());
        assertThat(answer.getStatus()).as("it had not started").isEqualTo(Status.CANCELLED);
        assertThat(leaf.counters().snapshot().rootCancelsDroppedQueued()).isEqualTo(1);

        assertThat(injectStall(root, Duration.ZERO, Duration.ZERO).getError()).isEmpty();
        assertThat(leaf.injectedStall()).isEmpty();
        SearchResponse next = search(root, request(1));
        assertThat(next.getStatus()).isEqualTo(Status.OK);
        assertThat(next.getCutShort()).isFalse();
    }

    @Test
    void aStallHeldTaskWhoseDeadlinePassesAnswersExpired() throws IOException {
        LeafServer leaf = start();
        FrameSocket root = connect(leaf);
        assertThat(injectStall(root, HOLD, HOLD.plusSeconds(1)).getError()).isEmpty();

        SearchResponse answer = search(root, request(0).toBuilder().setBudgetNanos(Duration.ofMillis(200).toNanos()).build());

        assertThat(answer.getStatus()).isEqualTo(Status.EXPIRED);
        LeafCounters.Snapshot counters = leaf.counters().snapshot();
        assertThat(counters.stallHolds()).isEqualTo(1);
        assertThat(counters.expiredAtDequeue()).isEqualTo(1);
    }

    @Test
    void aDelayAndAStallAreInjectedIndependentlyAndRefusedWithoutFaultInjection() throws IOException {
        LeafServer leaf = start();
        FrameSocket root = connect(leaf);
        InjectFaultAck delayed = inject(root, InjectFault.newBuilder().setKind(FaultKind.DELAY)
                .setDelayNanos(Duration.ofMillis(20).toNanos()).setProbability(0.25).setSeed(7)
                .setDistribution(DelayDistribution.EXPONENTIAL).setDurationNanos(Duration.ofMinutes(1).toNanos()));
        assertThat(delayed.getError()).isEmpty();
        assertThat(delayed.getSeed()).isEqualTo(7);
        assertThat(injectStall(root, Duration.ofMillis(1), Duration.ofHours(1)).getError()).isEmpty();
        assertThat(leaf.injectedDelay()).contains(new InjectedDelay(Duration.ofMillis(20).toNanos(), 0.25,
                Duration.ofMinutes(1).toNanos(), 7, InjectedDelay.Distribution.EXPONENTIAL));
        assertThat(leaf.injectedStall()).isPresent();

        assertThat(injectStall(root, Duration.ofMillis(150), Duration.ofMillis(150)).getError())
                .isEqualTo("periodNanos: 150000000 (expected: > stallNanos 150000000, or the leaf would never run)");
        assertThat(inject(root, InjectFault.newBuilder().setKind(FaultKind.STALL).setDelayNanos(1).setPeriodNanos(2)
                .setDurationNanos(InjectedDelay.UNTIL_EXIT)).getError()).as("only the command line lasts until exit")
                .startsWith("durationNanos: 9223372036854775807 (expected: 0..3600000000000");
        assertThat(injectDelay(root, Duration.ZERO).getError()).isEmpty();
        assertThat(leaf.injectedDelay()).isEmpty();
        assertThat(leaf.injectedStall()).as("a delay's clear leaves the stall").isPresent();

        LeafServer refusing = start(leaves.config().withWorkers(1));
        FrameSocket toRefusing = connect(refusing);
        assertThat(injectStall(toRefusing, Duration.ofMillis(150), Duration.ofSeconds(1)).getError())
                .isEqualTo(FaultControl.DISABLED);
        assertThat(refusing.injectedStall()).isEmpty();
    }

    @Test
    void startsWithTheStallItsConfigurationNames() throws IOException {
        InjectedStall stall = new InjectedStall(Duration.ofMillis(150).toNanos(), Duration.ofSeconds(1).toNanos(),
                InjectedDelay.UNTIL_EXIT);
        LeafServer leaf = start(leaves.config().withWorkers(1).withFaultInjection(true).withInitialStall(stall));

        assertThat(leaf.injectedStall()).contains(stall);
        assertThat(org.assertj.core.api.Assertions.catchThrowable(
                () -> leaves.config().withInitialStall(stall)))
                .hasMessage("initialStall: 150ms every 1s until the leaf exits (expected: none unless fault injection is enabled)");
    }

    // ------------------------------------------------------------------ scheduling classes

    @Test
    void servesItsOwnPrimariesBeforeBackupsThatCameFirst() throws IOException {
        LeafServer leaf = start();
        FrameSocket root = connect(leaf);
        assertThat(injectStall(root, HOLD, HOLD.plusSeconds(1)).getError()).isEmpty();
        SearchRequest filler = request(0);
        root.send(frame(filler));
        awaitCounter(leaf, LeafCounters.Snapshot::stallHolds, 1);
        SearchRequest backup = request(0).toBuilder().setPriority(Priority.BACKUP).build();
        SearchRequest primary = request(1);
        root.send(frame(backup));
        root.send(frame(primary));

        assertThat(injectStall(root, Duration.ZERO, Duration.ZERO).getError()).isEmpty();

        assertThat(List.of(root.receive().getResult().getRequestId(), root.receive().getResult().getRequestId(),
                root.receive().getResult().getRequestId()))
                .containsExactly(filler.getRequestId(), primary.getRequestId(), backup.getRequestId());
    }

    // ------------------------------------------------------------------ helpers

    private LeafServer start() throws IOException {
        return start(leaves.config().withWorkers(1).withFaultInjection(true));
    }

    private LeafServer start(LeafConfig config) throws IOException {
        return leaves.start(config);
    }

    /** A root's connection with every partition assigned, naming the leaves started and {@link #extraPeers}. */
    private FrameSocket connect(LeafServer leaf) throws IOException {
        return TestLeaves.root(leaf, leaves.sockets(), FrameSocket.ROOT_ID, INDEX, PARTITIONS,
                Stream.concat(leaves.started().stream().map(LeafServer::address), extraPeers.stream()).toList());
    }

    /** Another leaf's connection for twin cancels. */
    private FrameSocket connectPeer(LeafServer leaf) throws IOException {
        return leaves.peer(leaf);
    }

    private SearchRequest request(int partition) {
        return SearchRequest.newBuilder().setRequestId(leaves.nextRequestId()).setPartition(partition).setQuery("body:meadow")
                .setK(3).build();
    }

    /** A request whose (made-up) twin is on the leaf at {@code address}. */
    private SearchRequest tiedTo(String address) {
        return request(0).toBuilder().setTwin(Twin.newBuilder().setLeafAddress(address).setRequestId(leaves.nextRequestId())).build();
    }

    private static Frame frame(SearchRequest request) {
        return Frame.newBuilder().setSearch(request).build();
    }

    /** Another leaf's cancel of the test root's request {@code requestId}. */
    private static Frame twinCancel(long requestId) {
        return Frame.newBuilder().setCancel(Cancel.newBuilder().setRequestId(requestId).setIfQueued(true)
                .setRootId(FrameSocket.ROOT_ID)).build();
    }

    private static Frame cancel(long requestId, boolean ifQueued) {
        return Frame.newBuilder().setCancel(Cancel.newBuilder().setRequestId(requestId).setIfQueued(ifQueued)).build();
    }

    private static SearchResponse search(FrameSocket root, SearchRequest request) throws IOException {
        root.send(frame(request));
        SearchResponse answer = root.receive().getResult();
        assertThat(answer.getRequestId()).isEqualTo(request.getRequestId());
        return answer;
    }

    /** A fixed delay on every sub-request for a minute; zero clears. */
    private static InjectFaultAck injectDelay(FrameSocket root, Duration delay) throws IOException {
        return inject(root, InjectFault.newBuilder().setKind(FaultKind.DELAY).setDelayNanos(delay.toNanos())
                .setProbability(1.0).setDurationNanos(Duration.ofMinutes(1).toNanos()));
    }

    /** A stall of {@code stall} every {@code period} for a minute, starting now; zero clears. */
    private static InjectFaultAck injectStall(FrameSocket root, Duration stall, Duration period) throws IOException {
        return inject(root, InjectFault.newBuilder().setKind(FaultKind.STALL).setDelayNanos(stall.toNanos())
                .setPeriodNanos(period.toNanos()).setDurationNanos(Duration.ofMinutes(1).toNanos()));
    }

    private static void awaitCounter(LeafServer leaf, ToLongFunction<LeafCounters.Snapshot> counter, long value) {
        Eventually.await(() -> counter.applyAsLong(leaf.counters().snapshot()) >= value, "a counter to reach " + value);
    }


    private static InjectFaultAck inject(FrameSocket root, InjectFault.Builder injection) throws IOException {
        root.send(Frame.newBuilder().setInject(injection.setRequestId(1)).build());
        Frame answer = root.receive();
        assertThat(answer.getBodyCase()).isEqualTo(Frame.BodyCase.INJECT_ACK);
        return answer.getInjectAck();
    }
}
