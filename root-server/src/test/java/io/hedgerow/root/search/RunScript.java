package io.hedgerow.root.search;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.SearchException;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.common.wire.proto.FetchResponse;
import io.hedgerow.common.wire.proto.FetchedDoc;
import io.hedgerow.common.wire.proto.Hit;
import io.hedgerow.common.wire.proto.Priority;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.StoredField;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cluster.PartitionAssignment;
import io.hedgerow.root.cluster.PlacementSnapshot;
import io.hedgerow.root.cost.BatchAdmissionSettings;
import io.hedgerow.root.cost.CostControl;
import io.hedgerow.root.hedge.HedgeBudget;
import io.hedgerow.root.hedge.HedgeDelay;
import io.hedgerow.root.hedge.HedgeSettings;
import io.hedgerow.root.hedge.RoundTrip;
import io.hedgerow.root.metrics.RootMetrics;
import io.hedgerow.root.tail.TailGuard;
import io.hedgerow.root.tail.TailSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.random.RandomGenerator;
import java.util.stream.IntStream;

/**
 * Drives one {@link SearchRun} through a script on a manual clock, as Vespa's
 * {@code InterleavedSearchInvokerTest} drives its invoker: the test says what happens when ("at t=3
 * ms the hedge timer fires") and checks the actions that come out. No Netty, no threads, no sleep.
 *
 * <p>The cluster is real configuration ({@link ClusterState}, the partition assignment, the hedge
 * budget and delay, the tail guard, the metrics) on the script's {@link ManualTicker}; the leaves
 * are {@link FakeLeaves}, all ready and idle unless the test says otherwise, so the dispatch policy
 * picks each partition's first replica. With the default shape (4 leaves, 8 partitions, 2 replicas)
 * partition p lives on leaves (leaves 0 and 1 are partners sharing no partition, so are 2 and 3):
 * <pre>
 *   p0: 0,2   p1: 1,3   p2: 2,1   p3: 3,0   p4: 0,2   p5: 1,3   p6: 2,1   p7: 3,1
 * </pre>
 * With 3 replicas: p0: 0,1,2  p1: 1,2,3  p2: 2,3,0  p3: 3,0,1  p4: 0,2,3  p5: 1,3,0  p6: 2,0,1  p7: 3,1,2.
 */
final class RunScript {
    static final long MS = 1_000_000L;

    final ManualTicker ticker = new ManualTicker();
    final ClusterState cluster;
    final RootMetrics metrics;
    final FanOutContext context;
    final FakeLeaves leaves;
    private long nextRequestId = 1;
    private int canaryStart;
    private SearchRun run;
    /** The timer the run last asked for and has not had yet. */
    private Long armedAt;
    private final long originNanos;

    RunScript(int leafCount, int partitions, int replicas, HedgeSettings hedge, TailSettings tail) {
        this(leafCount, partitions, replicas, hedge, tail, true, BatchAdmissionSettings.defaults());
    }

    /**
     * @param leafBatching   whether a fan-out's primaries for one leaf go in one message
     * @param batchAdmission the root's admission of batch copies to each leaf
     */
    RunScript(int leafCount, int partitions, int replicas, HedgeSettings hedge, TailSettings tail,
            boolean leafBatching, BatchAdmissionSettings batchAdmission) {
        List<String> addresses = IntStream.range(0, leafCount).mapToObj(i -> "127.0.0.1:" + (9000 + i)).toList();
        ClusterConfig config = ClusterConfig.of("script", addresses, partitions, replicas).withHedge(hedge).withTail(tail)
                .withLeafBatching(leafBatching).withBatchAdmission(batchAdmission);
        this.cluster = new ClusterState(config, 1, ticker);
        for (int p = 0; p < partitions; p++) {
            cluster.partitionDocCount(p, 100);
        }
        for (int leaf = 0; leaf < leafCount; leaf++) {
            cluster.leaf(leaf).connectionReady();
        }
        this.metrics = new RootMetrics(cluster);
        HedgeDelay hedgeDelay = new HedgeDelay(hedge, ticker);
        this.context = new FanOutContext(cluster, DispatchPolicy.leastOutstanding(), metrics, ticker, hedgeDelay,
                new HedgeDelay(hedge, ticker), new HedgeBudget(hedge, ticker), new RoundTrip(leafCount),
                new TailGuard(tail, hedgeDelay, ticker),
                CostControl.of(batchAdmission, leafCount, ticker));
        this.leaves = new FakeLeaves(leafCount);
        ticker.advance(Duration.ofSeconds(1)); // the clock does not start at zero
        this.originNanos = ticker.nanoTime();
    }

    /**
     * 4 leaves, 8 partitions, 2 replicas; hedged with a fixed 3 ms delay (query and fetch); no
     * canary; a fixed 20 ms cutoff; a fixed 50 ms canary timeout; canaries (when on) for every query.
     */
    static RunScript standard() {
        return new RunScript(4, 8, 2, hedge(), tail().withCanaries(0));
    }

    static HedgeSettings hedge() {
        return HedgeSettings.defaults().withFixedDelay(Duration.ofMillis(3));
    }

    static TailSettings tail() {
        TailSettings defaults = TailSettings.defaults();
        return defaults.withSkipKnownSafe(false).withCutoff(defaults.cutoff().withFixed(Duration.ofMillis(20)))
                .withCanaryTimeout(defaults.canaryTimeout().withFixed(Duration.ofMillis(50)))
                .withCache(defaults.cacheTtl(), 0, defaults.cacheMaxBytes());
    }

    /**
     * Publishes a serving assignment in which {@code partition} has the copies {@code leaves} (in
     * that order of preference) and every other partition keeps its own: a placement controller's
     * extra copy of a hot partition, say.
     */
    RunScript serving(int partition, int... leaves) {
        PartitionAssignment current = cluster.assignment();
        int[][] replicas = new int[current.partitions()][];
        for (int p = 0; p < replicas.length; p++) {
            replicas[p] = p == partition ? leaves : current.replicasOf(p);
        }
        cluster.publish(PlacementSnapshot.fixed(PartitionAssignment.of(current.leaves(), replicas)));
        return this;
    }

    /** The budget every run of this script shares. */
    HedgeBudget budget() {
        return context.budget();
    }

    /** The partition the first canary goes to (the run draws it at random). */
    RunScript canaryAt(int partition) {
        this.canaryStart = partition;
        return this;
    }

    /** A search of a few cheap terms, ids and scores only, 1 s timeout. */
    static SearchRequest.Builder query() {
        return SearchRequest.builder("alpha OR bravo").k(5).snippets(false).storedFields(false).timeoutMillis(1_000)
                .explain(true);
    }

    List<Action> start(SearchRequest.Builder request) {
        SearchRequest built = request.build();
        long now = ticker.nanoTime();
        TailGuard.Run admitted = (TailGuard.Run) context.tail().admit(built, now);
        long timeoutNanos = built.timeoutMillis() * MS;
        RandomGenerator random = new RandomGenerator() {
            @Override
            public long nextLong() {
                return 0;
            }

            @Override
            public int nextInt(int bound) {
                return canaryStart % bound;
            }
        };
        RunContext ctx = new RunContext(context, leaves, () -> nextRequestId++, random, built, admitted, now, timeoutNanos,
                RunContext.targetsOf(context, built));
        run = new SearchRun(ctx);
        return track(run.start(now));
    }

    /** Moves the clock to {@code millis} after the script's origin (the first search's start). */
    /** The script's time now, in milliseconds since it began. */
    double nowMillis() {
        return (ticker.nanoTime() - originNanos) / (double) MS;
    }

    RunScript at(double millis) {
        long target = originNanos + Math.round(millis * MS);
        long now = ticker.nanoTime();
        assertThat(target).as("the clock only moves forward").isGreaterThanOrEqualTo(now);
        ticker.advance(Duration.ofNanos(target - now));
        return this;
    }

    /** The timer the run asked for fires now; it must have asked for now or earlier. */
    List<Action> fire() {
        assertThat(armedAt).as("a timer armed").isNotNull();
        assertThat(armedAt).as("the timer is due").isLessThanOrEqualTo(ticker.nanoTime());
        armedAt = null;
        return track(run.handle(new Event.TimerFired(ticker.nanoTime())));
    }

    /** When the armed timer is due, in ms since the origin; null when none is armed. */
    Double timerAtMillis() {
        return armedAt == null ? null : (armedAt - originNanos) / (double) MS;
    }

    List<Action> ok(SearchCopy copy) {
        return answer(copy, answerOf(copy.partition(), copy.requestId(), Status.OK, false));
    }

    List<Action> cutShort(SearchCopy copy) {
        return answer(copy, answerOf(copy.partition(), copy.requestId(), Status.OK, true));
    }

    List<Action> answer(SearchCopy copy, Status status) {
        return answer(copy, answerOf(copy.partition(), copy.requestId(), status, false));
    }

    List<Action> answer(SearchCopy copy, SearchResponse response) {
        return track(run.handle(new Event.Answered(copy, response, ticker.nanoTime())));
    }

    List<Action> lost(SubRequest copy) {
        return track(run.handle(new Event.ConnectionLost(copy, "connection reset", ticker.nanoTime())));
    }

    /** The leaf answers the fetch with every document it was asked for. */
    List<Action> fetched(FetchCopy copy) {
        FetchResponse.Builder response = FetchResponse.newBuilder().setRequestId(copy.requestId()).setStatus(Status.OK);
        for (HitSlot hit : copy.hits()) {
            response.addDocs(FetchedDoc.newBuilder().setPartition(hit.partition()).setDoc(hit.hit().hit().getDoc())
                    .setId(hit.id()).addFields(StoredField.newBuilder().setName("title").setValue("title of " + hit.id())));
        }
        return fetched(copy, response.build());
    }

    List<Action> fetched(FetchCopy copy, Status status) {
        return fetched(copy, FetchResponse.newBuilder().setRequestId(copy.requestId()).setStatus(status)
                .setError("it went wrong").build());
    }

    List<Action> fetched(FetchCopy copy, FetchResponse response) {
        return track(run.handle(new Event.Fetched(copy, response, ticker.nanoTime())));
    }

    /** Two hits per partition, ids {@code p<partition>-<n>}, higher partitions scoring higher. */
    static SearchResponse answerOf(int partition, long requestId, Status status, boolean cutShort) {
        SearchResponse.Builder response = SearchResponse.newBuilder().setRequestId(requestId).setPartition(partition)
                .setStatus(status).setCutShort(cutShort);
        if (status == Status.OK) {
            response.setTotalHits(2).setTotalHitsExact(true)
                    .addHits(Hit.newBuilder().setId("p" + partition + "-0").setScore(10 + partition).setDoc(10))
                    .addHits(Hit.newBuilder().setId("p" + partition + "-1").setScore(1 + partition / 10f).setDoc(11));
        } else {
            response.setError(status.name().toLowerCase() + " at the leaf");
        }
        return response.build();
    }

    private List<Action> track(List<Action> actions) {
        for (Action action : actions) {
            if (action instanceof Action.ArmTimer arm) {
                armedAt = arm.atNanos();
            } else if (action instanceof Action.Finish || action instanceof Action.Fail) {
                armedAt = null;
            }
        }
        return actions;
    }

    SearchRun run() {
        return run;
    }

    // ------------------------------------------------------------------ reading actions

    /**
     * The search copies sent, whether alone or as parts of one message to their leaf ({@link
     * Action.SendSearches}): what a leaf receives per partition either way. In the order they were
     * chosen (their request ids), as if none had been grouped.
     */
    static List<Action.SendSearch> sends(List<Action> actions) {
        return actions.stream().flatMap(a -> switch (a) {
            case Action.SendSearch send -> java.util.stream.Stream.of(send);
            case Action.SendSearches sends -> sends.parts().stream();
            default -> java.util.stream.Stream.<Action.SendSearch>empty();
        }).sorted(java.util.Comparator.comparingLong(send -> send.copy().requestId())).toList();
    }

    /** The messages of several copies to one leaf ({@link Action.SendSearches}), in order. */
    static List<Action.SendSearches> grouped(List<Action> actions) {
        return actions.stream().filter(a -> a instanceof Action.SendSearches).map(a -> (Action.SendSearches) a).toList();
    }

    static List<SearchCopy> searches(List<Action> actions) {
        return sends(actions).stream().map(Action.SendSearch::copy).toList();
    }

    static List<io.hedgerow.common.wire.proto.SearchRequest> wires(List<Action> actions) {
        return sends(actions).stream().map(Action.SendSearch::wire).toList();
    }

    static List<FetchCopy> fetches(List<Action> actions) {
        return actions.stream().filter(a -> a instanceof Action.SendFetch).map(a -> ((Action.SendFetch) a).copy()).toList();
    }

    static List<io.hedgerow.common.wire.proto.FetchRequest> fetchWires(List<Action> actions) {
        return actions.stream().filter(a -> a instanceof Action.SendFetch).map(a -> ((Action.SendFetch) a).wire()).toList();
    }

    static List<SubRequest> cancels(List<Action> actions) {
        return actions.stream().filter(a -> a instanceof Action.Cancel).map(a -> ((Action.Cancel) a).copy()).toList();
    }

    /** The one search copy sent, checked to be partition {@code partition} to leaf {@code leaf}, of that kind and class. */
    static SearchCopy sent(List<Action> actions, int partition, int leaf, SubRequestTrace.Kind kind, Priority priority) {
        List<SearchCopy> copies = searches(actions).stream().filter(c -> c.partition() == partition).toList();
        assertThat(copies).as("copies of partition %d sent", partition).hasSize(1);
        SearchCopy copy = copies.getFirst();
        assertThat(copy.leaf()).as("leaf of partition %d's %s", partition, kind).isEqualTo(leaf);
        assertThat(copy.kind()).as("kind of partition %d's copy", partition).isEqualTo(kind);
        assertThat(copy.priority()).as("class of partition %d's copy", partition).isEqualTo(priority);
        return copy;
    }

    static SearchResult result(List<Action> actions) {
        List<SearchResult> results = actions.stream().filter(a -> a instanceof Action.Finish)
                .map(a -> ((Action.Finish) a).result()).toList();
        assertThat(results).as("finished with a result").hasSize(1);
        return results.getFirst();
    }

    static SearchException failure(List<Action> actions) {
        List<SearchException> failures = actions.stream().filter(a -> a instanceof Action.Fail)
                .map(a -> ((Action.Fail) a).failure()).toList();
        assertThat(failures).as("failed").hasSize(1);
        return failures.getFirst();
    }

    static boolean finished(List<Action> actions) {
        return actions.stream().anyMatch(a -> a instanceof Action.Finish || a instanceof Action.Fail);
    }

    double counter(String name, String... tags) {
        return metrics.registry().get(name).tags(tags).counter().count();
    }

    double subRequests(SubRequestTrace.Kind kind) {
        return counter("hedgerow.subrequests", "kind", kind.label());
    }

    /** The leaves as a search sees them: ready and idle unless a test says otherwise. */
    static final class FakeLeaves implements LeafView {
        private final boolean[] ready;
        private final boolean[] overtaken;
        private final boolean[] working;
        /** Out-of-sync replicas, as partition * 1_000_000 + leaf. */
        private final java.util.Set<Long> stale = new java.util.HashSet<>();

        FakeLeaves(int count) {
            ready = new boolean[count];
            overtaken = new boolean[count];
            working = new boolean[count];
            Arrays.fill(ready, true);
        }

        void down(int leaf) {
            ready[leaf] = false;
        }

        /** The leaf's replica of the partition missed acknowledged writes (out of sync). */
        void markStale(int partition, int leaf) {
            stale.add(partition * 1_000_000L + leaf);
        }

        @Override
        public boolean stale(int partition, int leaf) {
            return stale.contains(partition * 1_000_000L + leaf);
        }

        /** The leaf finished sub-requests sent after every copy it holds: later work overtook them. */
        void overtakes(int leaf) {
            overtaken[leaf] = true;
            working[leaf] = true;
        }

        /** The leaf finished some sub-request lately (older ones only). */
        void works(int leaf) {
            working[leaf] = true;
        }

        @Override
        public boolean isReady(int leaf) {
            return ready[leaf];
        }

        @Override
        public int outstanding(int leaf) {
            return 0;
        }

        @Override
        public boolean overtaken(int leaf, long sentNanos, Priority priority) {
            return overtaken[leaf];
        }

        @Override
        public boolean doneSince(int leaf, long nanos) {
            return working[leaf];
        }
    }

    /** Partitions 0..n-1 but {@code except}. */
    static List<Integer> partitionsBut(int n, int... except) {
        List<Integer> all = new ArrayList<>();
        for (int p = 0; p < n; p++) {
            final int q = p;
            if (Arrays.stream(except).noneMatch(e -> e == q)) {
                all.add(p);
            }
        }
        return all;
    }
}
