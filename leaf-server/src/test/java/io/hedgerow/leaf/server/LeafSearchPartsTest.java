package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.Cancel;
import io.hedgerow.common.wire.proto.FaultKind;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.Hit;
import io.hedgerow.common.wire.proto.InjectFault;
import io.hedgerow.common.wire.proto.LeafSearchRequest;
import io.hedgerow.common.wire.proto.Priority;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.leaf.index.SourceDocument;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Several partitions' searches in one frame ({@code LeafSearchRequest}), over real sockets and a real
 * index: a real {@link LeafServer} with one worker, a plain socket playing the root. Each part is
 * answered by its own frame, with what it would have answered alone; a cancel of one part that has
 * not started drops it while the others answer; the cheap parts go to the worker as one task, and a
 * part estimated (or hinted) expensive still goes to the expensive lane alone; parts whose deadline
 * passed in the queue each answer EXPIRED, and parts a full queue refuses each answer BUSY.
 */
@Timeout(60)
class LeafSearchPartsTest {
    private static final String INDEX = "parts";
    private static final int PARTITIONS = 4;
    /** Long enough that nothing in a test outlasts it: the hold ends when the test clears it. */
    private static final Duration HOLD = Duration.ofSeconds(50);

    @RegisterExtension
    static final RealLeaves leaves = RealLeaves.of(INDEX, PARTITIONS, documents());

    private static List<SourceDocument> documents() {
        List<SourceDocument> docs = new ArrayList<>();
        String[] words = {"meadow", "hawthorn", "blackbird", "brook", "hazel", "sloe", "wren"};
        for (int i = 0; i < 120; i++) {
            Map<String, String> fields = new LinkedHashMap<>();
            fields.put("title", words[i % words.length] + " " + words[(i / 7) % words.length]);
            fields.put("body", "the " + words[i % words.length] + " by the " + words[(i + 3) % words.length]
                    + " and the " + words[(i * 5 + 1) % words.length] + ".");
            docs.add(new SourceDocument("doc-" + i, fields, i + 1));
        }
        return docs;
    }

    @Test
    void eachPartOfOneRequestIsAnsweredOnItsOwnWithWhatItWouldHaveAnsweredAlone() throws IOException {
        LeafServer leaf = leaves.start(leaves.config().withWorkers(1));
        FrameSocket root = leaves.root(leaf);
        Map<Integer, SearchResponse> alone = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            SearchRequest request = request(p);
            root.send(Frame.newBuilder().setSearch(request).build());
            alone.put(p, root.receive().getResult());
        }

        List<SearchRequest> parts = IntStream.range(0, PARTITIONS).mapToObj(this::request).toList();
        root.send(parts(parts));
        Map<Long, SearchResponse> answers = receiveResults(root, PARTITIONS);

        assertThat(answers.keySet()).containsExactlyInAnyOrderElementsOf(
                parts.stream().map(SearchRequest::getRequestId).toList());
        for (SearchRequest part : parts) {
            SearchResponse answer = answers.get(part.getRequestId());
            SearchResponse single = alone.get(part.getPartition());
            assertThat(answer.getStatus()).isEqualTo(Status.OK);
            assertThat(answer.getPartition()).isEqualTo(part.getPartition());
            assertThat(answer.getCutShort()).isFalse();
            assertThat(answer.getTotalHits()).isEqualTo(single.getTotalHits()).isPositive();
            assertThat(answer.getHitsList()).extracting(Hit::getDoc, Hit::getScore)
                    .isEqualTo(single.getHitsList().stream()
                            .map(h -> org.assertj.core.groups.Tuple.tuple(h.getDoc(), h.getScore())).toList());
            assertThat(answer.getCost().getCpuNanos()).as("each part's own CPU time").isPositive();
        }
        assertThat(leaf.counters().searchPartsTasks.sum()).as("one task for the four parts").isEqualTo(1);
    }

    @Test
    void aCancelOfOnePartBeforeItStartsDropsItWhileTheOtherPartsAnswer() throws IOException {
        LeafServer leaf = leaves.start(leaves.config().withWorkers(1).withFaultInjection(true));
        FrameSocket root = leaves.root(leaf);
        injectDelay(root, HOLD);
        receiveInjectAck(root);
        SearchRequest filler = request(3);
        root.send(Frame.newBuilder().setSearch(filler).build());
        awaitCounter(leaf, () -> leaf.counters().snapshot().delaysInjected(), 1); // the only worker holds it
        SearchRequest first = request(0);
        SearchRequest cancelled = request(1);
        SearchRequest last = request(2);
        root.send(parts(List.of(first, cancelled, last)));

        root.send(Frame.newBuilder().setCancel(Cancel.newBuilder().setRequestId(cancelled.getRequestId())).build());
        SearchResponse dropped = root.receive().getResult();

        assertThat(dropped.getRequestId()).isEqualTo(cancelled.getRequestId());
        assertThat(dropped.getStatus()).isEqualTo(Status.CANCELLED);
        assertThat(dropped.getPartition()).isEqualTo(1);

        // The hold ends: the filler answers, then the parts' task runs the two parts left.
        injectDelay(root, Duration.ZERO);
        Map<Long, SearchResponse> answers = receiveResultsAndInjectAck(root, 3);
        assertThat(answers.keySet()).containsExactlyInAnyOrder(filler.getRequestId(), first.getRequestId(),
                last.getRequestId());
        assertThat(answers.get(first.getRequestId()).getStatus()).isEqualTo(Status.OK);
        assertThat(answers.get(last.getRequestId()).getStatus()).isEqualTo(Status.OK);
        assertThat(answers.get(last.getRequestId()).getHitsCount()).isPositive();

        // Nothing more for the cancelled part: the next answer is the next request's.
        SearchRequest next = request(0);
        root.send(Frame.newBuilder().setSearch(next).build());
        assertThat(root.receive().getResult().getRequestId()).isEqualTo(next.getRequestId());
        LeafCounters.Snapshot counters = leaf.counters().snapshot();
        assertThat(counters.rootCancelsDroppedQueued()).isEqualTo(1);
        assertThat(counters.delaysInjected()).as("only the filler was held; the dropped part never ran").isEqualTo(1);
    }

    @Test
    void partsEstimatedExpensiveMoveToTheLaneAloneAndPartsHintedExpensiveAreQueuedThereOnArrival() throws IOException {
        // Every search here estimates at least 1: each part moves to the lane once its worker estimated it.
        LeafServer leaf = leaves.start(leaves.config().withWorkers(1)
                .withScheduling(SchedulingConfig.defaults().withExpensiveCost(1)));
        FrameSocket root = leaves.root(leaf);
        List<SearchRequest> parts = new ArrayList<>();
        parts.add(request(0));
        parts.add(request(1).toBuilder().setCostHint(1_000_000).build()); // known expensive: alone, to the lane
        parts.add(request(2));
        parts.add(request(3).toBuilder().setCostHint(1_000_000).build());

        root.send(parts(parts));
        Map<Long, SearchResponse> answers = receiveResults(root, parts.size());

        assertThat(answers.values()).allSatisfy(answer -> {
            assertThat(answer.getStatus()).isEqualTo(Status.OK);
            assertThat(answer.getHitsCount()).isPositive();
            assertThat(answer.getCost().getExpensive()).as("ran in the lane").isTrue();
        });
        LeafCounters.Snapshot counters = leaf.counters().snapshot();
        assertThat(counters.expensiveSearches()).isEqualTo(4);
        assertThat(leaf.counters().searchPartsTasks.sum()).as("the two unhinted parts, together").isEqualTo(1);
    }

    @Test
    void partsWhoseDeadlinePassedWhileTheyWaitedEachAnswerExpiredAndNoneRuns() throws IOException {
        LeafServer leaf = leaves.start(leaves.config().withWorkers(1).withFaultInjection(true));
        FrameSocket root = leaves.root(leaf);
        injectDelay(root, HOLD);
        receiveInjectAck(root);
        SearchRequest filler = request(3);
        root.send(Frame.newBuilder().setSearch(filler).build());
        awaitCounter(leaf, () -> leaf.counters().snapshot().delaysInjected(), 1);
        // A budget of 1 ns: passed long before the worker is free.
        List<SearchRequest> parts = List.of(request(0).toBuilder().setBudgetNanos(1).build(),
                request(1).toBuilder().setBudgetNanos(1).build());
        root.send(parts(parts));

        injectDelay(root, Duration.ZERO);
        Map<Long, SearchResponse> answers = receiveResultsAndInjectAck(root, 3);

        assertThat(answers.get(filler.getRequestId()).getStatus()).isEqualTo(Status.OK);
        for (SearchRequest part : parts) {
            assertThat(answers.get(part.getRequestId()).getStatus()).isEqualTo(Status.EXPIRED);
            assertThat(answers.get(part.getRequestId()).getPartition()).isEqualTo(part.getPartition());
        }
        assertThat(leaf.counters().snapshot().expiredAtDequeue()).isEqualTo(2);
    }

    @Test
    void partsRefusedByAFullQueueAreEachAnsweredBusy() throws IOException {
        LeafServer leaf = leaves.start(leaves.config().withWorkers(1).withFaultInjection(true)
                .withScheduling(SchedulingConfig.defaults().withDepth(Priority.INTERACTIVE, 1)));
        FrameSocket root = leaves.root(leaf);
        injectDelay(root, HOLD);
        receiveInjectAck(root);
        SearchRequest running = request(3);
        root.send(Frame.newBuilder().setSearch(running).build());
        awaitCounter(leaf, () -> leaf.counters().snapshot().delaysInjected(), 1); // taken: the queue is empty
        SearchRequest queued = request(2);
        root.send(Frame.newBuilder().setSearch(queued).build()); // fills the interactive class's one place

        List<SearchRequest> parts = List.of(request(0), request(1));
        root.send(parts(parts));
        Map<Long, SearchResponse> refused = receiveResults(root, parts.size());

        assertThat(refused.keySet()).containsExactlyInAnyOrderElementsOf(
                parts.stream().map(SearchRequest::getRequestId).toList());
        assertThat(refused.values()).allSatisfy(answer -> assertThat(answer.getStatus()).isEqualTo(Status.BUSY));
        injectDelay(root, Duration.ZERO); // the hold ends; the two queued alone answer
        Map<Long, SearchResponse> rest = receiveResultsAndInjectAck(root, 2);
        assertThat(rest.keySet()).containsExactlyInAnyOrder(running.getRequestId(), queued.getRequestId());
    }

    @Test
    void theLeafSaysItTakesSeveralPartitionsInOneFrame() throws IOException {
        LeafServer leaf = leaves.start(leaves.config().withWorkers(1));
        assertThat(leaves.open(leaf).hello(FrameSocket.ROOT_ID).getTakesSearchParts()).isTrue();
    }

    // ------------------------------------------------------------------ helpers

    private SearchRequest request(int partition) {
        return SearchRequest.newBuilder().setRequestId(leaves.nextRequestId()).setPartition(partition)
                .setQuery("body:meadow OR body:wren").setK(5).build();
    }

    private static Frame parts(List<SearchRequest> parts) {
        return Frame.newBuilder().setSearchParts(LeafSearchRequest.newBuilder().addAllParts(parts)).build();
    }

    /** The next {@code count} frames, each a search answer, by request id; no request answered twice. */
    private static Map<Long, SearchResponse> receiveResults(FrameSocket root, int count) throws IOException {
        Map<Long, SearchResponse> answers = new HashMap<>();
        for (int i = 0; i < count; i++) {
            Frame frame = root.receive();
            assertThat(frame.getBodyCase()).isEqualTo(Frame.BodyCase.RESULT);
            assertThat(answers.put(frame.getResult().getRequestId(), frame.getResult())).as("one answer each").isNull();
        }
        return answers;
    }

    /**
     * As {@link #receiveResults}, and the ack of an injected fault among them (a delay's clear,
     * sent while answers may still be on their way).
     */
    private static Map<Long, SearchResponse> receiveResultsAndInjectAck(FrameSocket root, int count) throws IOException {
        Map<Long, SearchResponse> answers = new HashMap<>();
        boolean acked = false;
        while (answers.size() < count || !acked) {
            Frame frame = root.receive();
            if (frame.getBodyCase() == Frame.BodyCase.INJECT_ACK) {
                acked = true;
            } else {
                assertThat(frame.getBodyCase()).isEqualTo(Frame.BodyCase.RESULT);
                assertThat(answers.put(frame.getResult().getRequestId(), frame.getResult())).as("one answer each").isNull();
            }
        }
        return answers;
    }

    /** A fixed delay on every sub-request for a minute; zero clears. The ack is the caller's to read. */
    private static void injectDelay(FrameSocket root, Duration delay) throws IOException {
        root.send(Frame.newBuilder().setInject(InjectFault.newBuilder().setRequestId(1).setKind(FaultKind.DELAY)
                .setDelayNanos(delay.toNanos()).setProbability(1.0).setDurationNanos(Duration.ofMinutes(1).toNanos()))
                .build());
    }

    private static void receiveInjectAck(FrameSocket root) throws IOException {
        Frame answer = root.receive();
        assertThat(answer.getBodyCase()).isEqualTo(Frame.BodyCase.INJECT_ACK);
        assertThat(answer.getInjectAck().getError()).isEmpty();
    }

    private static void awaitCounter(LeafServer leaf, java.util.function.LongSupplier counter, long value) {
        Eventually.await(() -> counter.getAsLong() >= value, "a counter to reach " + value);
    }
}
