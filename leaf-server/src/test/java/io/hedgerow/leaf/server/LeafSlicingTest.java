package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.Cancel;
import io.hedgerow.common.wire.proto.FaultKind;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.InjectFault;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.leaf.index.SourceDocument;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Time-slicing at a real leaf with one worker, over real sockets: a long search submitted first
 * yields to a cheap one submitted after it. Which answers first is the check, never how long
 * anything took. An injected delay holds the long search on the only worker until the cheap one
 * is queued behind it, so the order of arrivals is known exactly.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class LeafSlicingTest {
    private static final String INDEX = "slicing";
    /** Several windows of {@code SlicedSearch.Windows.DEFAULT}, so the long search has slices to yield between. */
    private static final int DOCS = 7000;
    private static final String[] WORDS = {"meadow", "hawthorn", "blackbird", "brook", "hazel", "bramble", "oak",
        "thrush", "willow", "badger"};
    /** Every document has one of these: the long query matches all of them. */
    private static final String LONG_QUERY = "body:(" + String.join(" ", WORDS) + ")";
    /** In one document. */
    private static final String CHEAP_QUERY = "body:kingfisher";
    /** Longer than any test: the hold ends when the test clears the delay. */
    private static final Duration HOLD = Duration.ofSeconds(50);

    @RegisterExtension
    static final RealLeaves leaves = RealLeaves.of(INDEX, 1, documents()).firstRequestId(1);

    private static List<SourceDocument> documents() {
        List<SourceDocument> docs = new ArrayList<>();
        for (int i = 0; i < DOCS; i++) {
            Map<String, String> fields = new LinkedHashMap<>();
            fields.put("title", "note " + i);
            String body = "the " + WORDS[i % WORDS.length] + " by the " + WORDS[(i / 7) % WORDS.length];
            fields.put("body", i == DOCS / 2 ? body + " and a kingfisher." : body + ".");
            docs.add(new SourceDocument("doc-" + i, fields, i + 1));
        }
        return docs;
    }

    @Test
    void aLongSearchYieldsToACheapOneSubmittedAfterIt() throws IOException {
        // The smallest budget: a slice is one unit of work, so the long search yields after its set-up.
        LeafServer leaf = start(Duration.ofNanos(1));

        List<SearchResponse> answers = longThenCheap(leaf);

        assertThat(answers).extracting(SearchResponse::getRequestId).as("cheap first").containsExactly(2L, 1L);
        SearchResponse cheap = answers.get(0);
        SearchResponse slow = answers.get(1);
        assertThat(cheap.getStatus()).isEqualTo(Status.OK);
        assertThat(cheap.getTotalHits()).isEqualTo(1);
        assertThat(slow.getStatus()).isEqualTo(Status.OK);
        assertThat(slow.getCutShort()).isFalse();
        assertThat(slow.getTotalHits()).as("every hit counted").isEqualTo(DOCS);
        assertThat(slow.getTotalHitsExact()).isTrue();
        assertThat(slow.getHitsCount()).isEqualTo(10);
        assertThat(leaf.counters().snapshot().slicesYielded()).isGreaterThanOrEqualTo(1);
    }

    @Test
    void withoutSlicingTheLongSearchHoldsTheWorkerUntilItEnds() throws IOException {
        LeafServer leaf = start(Duration.ZERO);

        List<SearchResponse> answers = longThenCheap(leaf);

        assertThat(answers).extracting(SearchResponse::getRequestId).as("long first").containsExactly(1L, 2L);
        assertThat(leaf.counters().snapshot().slicesYielded()).isZero();
    }

    @Test
    void aSlicedSearchAnswersWhatTheUnslicedOneDoes() throws IOException {
        LeafServer unsliced = start(Duration.ZERO);
        LeafServer sliced = start(Duration.ofNanos(1));
        FrameSocket plain = leaves.root(unsliced);
        FrameSocket slicing = leaves.root(sliced);
        for (String query : List.of(LONG_QUERY, CHEAP_QUERY, "body:meadow", "body:(oak AND thrush)",
                "body:\"the hazel\"", "body:haz*", "title:note")) {
            // Counting every hit: the whole answer is the same.
            SearchRequest counted = request(query).toBuilder().setK(25).setTotalHitsThreshold(Integer.MAX_VALUE).build();
            assertThat(search(slicing, counted)).as(query).isEqualTo(search(plain, counted));

            // Counting up to the default 1,000: past it the count is a lower bound, which may depend on
            // where windows of doc ids start and end; the hits do not.
            SearchRequest request = request(query).toBuilder().setK(25).build();
            SearchResponse expected = search(plain, request);
            SearchResponse actual = search(slicing, request);
            assertThat(actual.getHitsList()).as(query).isEqualTo(expected.getHitsList());
            assertThat(actual.getTotalHitsExact()).as(query).isEqualTo(expected.getTotalHitsExact());
            if (expected.getTotalHitsExact()) {
                assertThat(actual.getTotalHits()).as(query).isEqualTo(expected.getTotalHits());
            }
            assertThat(actual.getStatus()).as(query).isEqualTo(Status.OK);
            assertThat(actual.getCutShort()).as(query).isFalse();
        }
    }

    @Test
    void aCancelWhileTheContinuationWaitsDropsItAndAnswersCancelledAtOnce() throws IOException {
        LeafServer leaf = start(Duration.ofNanos(1));
        FrameSocket root = leaves.root(leaf);
        // Half the sub-requests are held; this seed's coins hold the first and the third to start.
        Frame held = inject(root, delay(HOLD).setProbability(0.5).setSeed(seedWithCoins(true, false, true)));
        assertThat(held.getInjectAck().getError()).isEmpty();
        SearchRequest first = request(CHEAP_QUERY);
        SearchRequest slow = request(LONG_QUERY).toBuilder().setTotalHitsThreshold(Integer.MAX_VALUE).build();
        SearchRequest third = request(CHEAP_QUERY);
        root.send(frame(first));
        Eventually.await(() -> leaf.counters().snapshot().delaysInjected() == 1, "the first search to hold the worker");
        root.send(frame(slow));
        root.send(frame(third));
        Eventually.await(() -> leaf.queued() == 2, "the long and the third search to queue");

        // The first search lets the worker go; the long one runs a slice, yields to the third, which is held.
        root.send(cancel(first.getRequestId()));
        assertThat(root.receive().getResult().getRequestId()).isEqualTo(first.getRequestId());
        Eventually.await(() -> leaf.counters().snapshot().delaysInjected() == 2 && leaf.queued() == 1,
                "the third search to hold the worker, the long one's continuation waiting");
        assertThat(leaf.counters().snapshot().slicesYielded()).isEqualTo(1);

        root.send(cancel(slow.getRequestId()));
        SearchResponse cancelled = root.receive().getResult();

        assertThat(cancelled.getRequestId()).as("answered while the only worker is still held").isEqualTo(slow.getRequestId());
        assertThat(cancelled.getStatus()).isEqualTo(Status.CANCELLED);
        assertThat(cancelled.getError()).isEqualTo("cancelled between slices");
        assertThat(leaf.queued()).as("the continuation left the queue").isZero();
        assertThat(leaf.counters().snapshot().rootCancelsDroppedQueued()).isEqualTo(1);

        // Once the worker is free, the long search answers nothing more: the next answers are the others'.
        root.send(cancel(third.getRequestId()));
        assertThat(root.receive().getResult().getRequestId()).isEqualTo(third.getRequestId());
        assertThat(inject(root, delay(Duration.ZERO)).getInjectAck().getError()).isEmpty();
        SearchRequest after = request(CHEAP_QUERY);
        root.send(frame(after));
        SearchResponse next = root.receive().getResult();
        assertThat(next.getRequestId()).isEqualTo(after.getRequestId());
        assertThat(next.getTotalHits()).isEqualTo(1);
    }

    /** The first seed whose delay coins ({@code java.util.Random}, as the leaf flips them at p = 0.5) come up so. */
    private static long seedWithCoins(boolean... delayed) {
        for (long seed = 1; ; seed++) {
            Random coins = new Random(seed);
            boolean matches = true;
            for (boolean expected : delayed) {
                matches &= (coins.nextDouble() < 0.5) == expected;
            }
            if (matches) {
                return seed;
            }
        }
    }

    private static Frame cancel(long requestId) {
        return Frame.newBuilder().setCancel(Cancel.newBuilder().setRequestId(requestId)).build();
    }

    /** The answer without its timings and its measured cost, which differ from run to run. */
    private static SearchResponse search(FrameSocket root, SearchRequest request) throws IOException {
        root.send(frame(request));
        SearchResponse answer = root.receive().getResult();
        assertThat(answer.getRequestId()).isEqualTo(request.getRequestId());
        assertThat(answer.getCost().getEstimate()).as("the cost estimate is reported").isPositive();
        return answer.toBuilder().clearQueueNanos().clearServiceNanos().clearCost().build();
    }

    /**
     * Holds the only worker with the long search, queues the cheap one behind it, then lets the
     * worker go; the two answers in the order they came.
     */
    private List<SearchResponse> longThenCheap(LeafServer leaf) throws IOException {
        FrameSocket root = leaves.root(leaf);
        Frame held = inject(root, delay(HOLD));
        assertThat(held.getInjectAck().getError()).isEmpty();
        root.send(frame(request(LONG_QUERY).toBuilder().setTotalHitsThreshold(Integer.MAX_VALUE).build()));
        Eventually.await(() -> leaf.counters().snapshot().delaysInjected() >= 1, "the worker to hold the long search");
        root.send(frame(request(CHEAP_QUERY)));
        Eventually.await(() -> leaf.queued() == 1, "the cheap search to queue behind it");

        root.send(Frame.newBuilder().setInject(delay(Duration.ZERO).setRequestId(leaves.nextRequestId())).build());
        List<SearchResponse> answers = new ArrayList<>();
        while (answers.size() < 2) {
            Frame frame = root.receive();
            if (frame.getBodyCase() == Frame.BodyCase.RESULT) {
                answers.add(frame.getResult());
            } else {
                assertThat(frame.getBodyCase()).isEqualTo(Frame.BodyCase.INJECT_ACK); // the clear's, in any order
            }
        }
        return answers;
    }

    private LeafServer start(Duration slice) throws IOException {
        return leaves.start(leaves.config().withWorkers(1).withFaultInjection(true)
                .withSlice(slice));
    }


    /** Request ids 1, 2, 3... in the order the test makes them. */
    private SearchRequest request(String query) {
        return SearchRequest.newBuilder().setRequestId(leaves.nextRequestId()).setPartition(0).setQuery(query).setK(10).build();
    }

    private static Frame frame(SearchRequest request) {
        return Frame.newBuilder().setSearch(request).build();
    }

    /** A fixed delay of every sub-request for a minute; zero clears. */
    private static InjectFault.Builder delay(Duration delay) {
        return InjectFault.newBuilder().setKind(FaultKind.DELAY).setDelayNanos(delay.toNanos()).setProbability(1.0)
                .setDurationNanos(Duration.ofMinutes(1).toNanos());
    }

    /** Injects a fault while nothing else is in flight on this connection: its answer is the ack. */
    private static Frame inject(FrameSocket root, InjectFault.Builder injection) throws IOException {
        root.send(Frame.newBuilder().setInject(injection.setRequestId(999_999)).build());
        return root.receive();
    }
}
