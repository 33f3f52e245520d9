package io.hedgerow.root.fanout;

import io.hedgerow.api.SearchException;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.FetchRequest;
import io.hedgerow.common.wire.proto.FetchResponse;
import io.hedgerow.common.wire.proto.Priority;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.root.adapt.LeafLoad;
import io.hedgerow.root.adapt.StallRule;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.hedge.HedgeBudget;
import io.hedgerow.root.hedge.HedgeDelay;
import io.hedgerow.root.metrics.RootMetrics;
import io.hedgerow.root.search.Action;
import io.hedgerow.root.search.DispatchPolicy;
import io.hedgerow.root.search.Event;
import io.hedgerow.root.search.FanOutContext;
import io.hedgerow.root.search.FetchCopy;
import io.hedgerow.root.search.FetchPhase;
import io.hedgerow.root.search.LeafLedger;
import io.hedgerow.root.search.LeafProgress;
import io.hedgerow.root.search.LeafView;
import io.hedgerow.root.search.RunContext;
import io.hedgerow.root.search.SearchCopy;
import io.hedgerow.root.search.SearchRun;
import io.hedgerow.root.search.SubRequest;
import io.hedgerow.root.tail.IndexQueryParser;
import io.hedgerow.root.tail.TailGuard;
import io.hedgerow.root.transport.LoopConnections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * The root's request path without Netty: the same {@link SearchRun}s, policies and shared state
 * ({@link FanOutContext}) as {@link FanOut} builds, with the world outside (the leaves, the network,
 * the clock) supplied by the caller. This is what the simulator ({@code io.hedgerow.root.sim})
 * drives at thousands of leaves: it plays the part of {@link Gatherer} and one event loop's
 * {@link LoopConnections}, turning what its modelled leaves do into events and executing the
 * actions on them. Every decision stays in the request path's own classes, the fetch phase's
 * included: a search that wants stored fields or snippets and has hits fetches them ({@link
 * Copy#fetch()}), hedged and retried as {@link FetchPhase} decides.
 *
 * <p>As one event loop's connections do, it keeps per leaf the copies outstanding (sent and neither
 * answered nor lost: a copy the run cancelled stays outstanding until its leaf answers the cancel;
 * what the dispatch policy sees), the leaf's load ({@link LeafLoad}: latency, queue, silence) and its
 * progress ({@link LeafProgress}, what the canary check reads); and, as a connection does, it hands
 * the run no answer to a copy the run has cancelled, nor to a shadow copy. What it books of each copy
 * and answer is booked by the server's own {@link LeafLedger}, one per leaf, as a connection books
 * it: the simulator cannot drift from the server there. The wire must answer
 * every copy, cancelled or not, or lose it, as a leaf does.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: one thread drives it and all its searches,
 * with time from its {@link Ticker} moving forward only.
 */
public final class DetachedRoot {

    /** What the request path asks of the world: implemented by the simulator. */
    public interface Wire {
        /** Deliver {@code copy}, a search or a fetch ({@link Copy#fetch()}), to its leaf ({@link Copy#leaf()}). */
        void send(Copy copy);

        /**
         * Tell {@code leaf} to drop the copy of {@code search} it holds as {@code requestId} (a copy
         * sent earlier); the search no longer waits for it.
         */
        void cancel(Search search, int leaf, long requestId);

        /** Wake {@code search} with {@link Search#timer} at {@code atNanos}, replacing the timer it had. */
        void armTimer(Search search, long atNanos);

        /** The search is over, with this result. Its timer is no longer wanted. */
        void finished(Search search, SearchResult result);

        /** The search failed as a whole. Its timer is no longer wanted. */
        void failed(Search search, SearchException failure);
    }

    private final FanOutContext context;
    private final Wire wire;
    private final int[] outstanding;
    private final LeafLedger[] ledgers;
    private final StallRule stallRule;
    private final boolean[] ready;
    private final View view = new View();
    private final Map<String, Integer> leavesByName = new HashMap<>();
    private long nextRequestId = 1;

    /**
     * @param cluster the cluster's configuration and state; its leaves all start ready
     * @param policy  which replica gets a sub-request
     * @param metrics the root's meters, as the request path records them
     * @param ticker  the clock of every search, deadline and timer
     * @param parser  parses queries for their fingerprints (canaries, the blocklist, the cache)
     */
    public DetachedRoot(ClusterState cluster, DispatchPolicy policy, RootMetrics metrics, Ticker ticker,
            IndexQueryParser parser, Wire wire) {
        this.context = FanOutContext.of(cluster, policy, metrics, ticker, parser);
        this.wire = wire;
        int leaves = cluster.leaves().size();
        this.outstanding = new int[leaves];
        this.ledgers = new LeafLedger[leaves];
        this.stallRule = cluster.config().adaptation().stallRule();
        this.ready = new boolean[leaves];
        for (int leaf = 0; leaf < leaves; leaf++) {
            ledgers[leaf] = new LeafLedger(leaf, cluster.probation(), cluster.slowStart(), cluster.partitionLoad());
            ready[leaf] = true;
            leavesByName.put(cluster.leaf(leaf).name(), leaf);
        }
    }

    /** The budget every search's extra sub-requests are charged to. */
    public HedgeBudget budget() {
        return context.budget();
    }

    /** The query phase's hedge delay, learnt from the answers. */
    public HedgeDelay hedgeDelay() {
        return context.hedgeDelay();
    }

    /** Canaries, the blocklist, the good-enough cutoff and the cache. */
    public TailGuard tail() {
        return context.tail();
    }

    /** Whether the root may send to {@code leaf} (a connection is up); all are at first. */
    public void ready(int leaf, boolean isReady) {
        ready[leaf] = isReady;
    }

    /** Copies sent to {@code leaf} and not yet answered or lost (cancelled ones included). */
    public int outstanding(int leaf) {
        return outstanding[leaf];
    }

    /** How far {@code leaf} has got through what was sent to it (what the canary check reads). */
    public LeafProgress progress(int leaf) {
        return ledgers[leaf].progress();
    }

    /**
     * Starts a search at {@code nowNanos}, as {@link FanOut} does: refused when blocklisted or
     * unparsable, answered at once from the cache, or run.
     *
     * @param random the search's random choices (its canary partition): seeded, for a repeatable run
     * @return the running search, or null when it was refused or served without a run (the wire
     *         was told, with {@code search} null)
     */
    public Search start(SearchRequest request, long timeoutNanos, RandomGenerator random, long nowNanos) {
        switch (context.tail().admit(request, nowNanos)) {
            case TailGuard.Refused refused -> {
                wire.failed(null, refused.reason());
                return null;
            }
            case TailGuard.Served served -> {
                wire.finished(null, served.result());
                return null;
            }
            case TailGuard.Run admitted -> {
                int[] targets;
                try {
                    targets = RunContext.targetsOf(context, request);
                } catch (SearchException e) {
                    wire.failed(null, e); // a routing value the index cannot route
                    return null;
                }
                RunContext ctx = new RunContext(context, view, () -> nextRequestId++, random, request, admitted,
                        nowNanos, timeoutNanos, targets);
                Search search = new Search(new SearchRun(ctx));
                search.execute(search.run.start(nowNanos));
                return search;
            }
        }
    }

    /** One search: events in, its actions carried out on the {@link Wire}. */
    public final class Search {
        private final SearchRun run;
        /** Anything the simulator wants to keep with the search. */
        public Object attachment;

        private Search(SearchRun run) {
            this.run = run;
        }

        /** The leaf answered {@code copy}, a search, at {@code nowNanos}; dropped if the search cancelled it. */
        public void answered(Copy copy, SearchResponse response, long nowNanos) {
            int leaf = copy.leaf();
            outstanding[leaf]--;
            SearchCopy sub = (SearchCopy) copy.sub;
            if (sub.cancelled()) { // as a connection does: the run stopped waiting for it
                ledgers[leaf].answeredAfterCancel(sub, response, nowNanos, context.metrics());
            } else if (ledgers[leaf].answered(sub, response, nowNanos)) {
                execute(run.handle(new Event.Answered(sub, response, nowNanos)));
            }
        }

        /**
         * The leaf answered {@code copy}, a fetch, at {@code nowNanos}: as a connection does, it tells
         * the leaf's load it heard from it, and the run unless the run cancelled the fetch.
         */
        public void fetched(Copy copy, FetchResponse response, long nowNanos) {
            int leaf = copy.leaf();
            outstanding[leaf]--;
            if (copy.sub.cancelled()) {
                ledgers[leaf].fetchedAfterCancel(copy.sub, response.getStatus(), nowNanos, context.metrics());
                return;
            }
            ledgers[leaf].fetched(nowNanos);
            execute(run.handle(new Event.Fetched((FetchCopy) copy.sub, response, nowNanos)));
        }

        /** The connection that carried {@code copy} closed before its answer came. */
        public void lost(Copy copy, String reason, long nowNanos) {
            outstanding[copy.leaf()]--;
            if (!LeafLedger.runHearsLoss(copy.sub)) {
                return;
            }
            execute(run.handle(new Event.ConnectionLost(copy.sub, reason, nowNanos)));
        }

        /** The timer the search asked for fires. */
        public void timer(long nowNanos) {
            execute(run.handle(new Event.TimerFired(nowNanos)));
        }

        private void send(Action.SendSearch send) {
            SearchCopy copy = sent(send.copy());
            io.hedgerow.common.wire.proto.SearchRequest request = send.wire();
            wire.send(new Copy(this, copy, request.getBudgetNanos(),
                    request.hasTwin() ? request.getTwin().getRequestId() : 0,
                    request.hasTwin() ? leafOf(request.getTwin().getLeafAddress()) : -1,
                    request.hasTwin() ? request.getTwin().getGraceNanos() : 0, null));
        }

        private void execute(List<Action> actions) {
            for (Action action : actions) {
                switch (action) {
                    case Action.SendSearch send -> send(send);
                    // The modelled leaves take each part as its own copy: the simulator models no
                    // message costs, and every part is answered, cancelled and lost on its own anyway.
                    case Action.SendSearches sends -> sends.parts().forEach(this::send);
                    case Action.SendShadow shadow -> {
                        SearchCopy copy = sent(shadow.copy());
                        wire.send(new Copy(this, copy, shadow.wire().getBudgetNanos(), 0, -1, 0, null));
                    }
                    case Action.SendFetch send -> wire.send(new Copy(this, sent(send.copy()),
                            send.wire().getBudgetNanos(), 0, -1, 0, send.wire()));
                    case Action.Cancel cancel -> {
                        // Still outstanding: the leaf holds it until it answers the cancel.
                        context.metrics().cancelSent();
                        wire.cancel(this, cancel.copy().leaf(), cancel.copy().requestId());
                    }
                    case Action.ArmTimer arm -> wire.armTimer(this, arm.atNanos());
                    case Action.Finish finish -> wire.finished(this, finish.result());
                    case Action.Fail fail -> wire.failed(this, fail.failure());
                }
            }
        }
    }

    /** The copy goes out now: owed by its leaf until answered or lost. */
    private <C extends SubRequest> C sent(C copy) {
        ledgers[copy.leaf()].sent(context.ticker().nanoTime(), outstanding[copy.leaf()]);
        outstanding[copy.leaf()]++;
        return copy;
    }

    private int leafOf(String name) {
        Integer leaf = leavesByName.get(name);
        if (leaf == null) {
            throw new IllegalArgumentException("twin leaf: " + name + " (expected: one of the cluster's leaves)");
        }
        return leaf;
    }

    /**
     * One sub-request as the wire carries it: its leaf, partition, class and request id, the budget
     * its leaf gets, and its tied twin if it has one; or a fetch, with what it fetches. A cancel
     * names the copy it cancels by the same {@link #requestId()}.
     */
    public static final class Copy {
        private final Search search;
        private final SubRequest sub;
        private final long budgetNanos;
        private final long twinRequestId;
        private final int twinLeaf;
        private final long twinGraceNanos;
        private final FetchRequest fetch;
        /** Anything the simulator wants to keep with the copy (its modelled task). */
        public Object attachment;

        private Copy(Search search, SubRequest sub, long budgetNanos, long twinRequestId, int twinLeaf,
                long twinGraceNanos, FetchRequest fetch) {
            this.search = search;
            this.sub = sub;
            this.budgetNanos = budgetNanos;
            this.twinRequestId = twinRequestId;
            this.twinLeaf = twinLeaf;
            this.twinGraceNanos = twinGraceNanos;
            this.fetch = fetch;
        }

        /** What this copy fetches when it is a fetch (answer it with {@link Search#fetched}); null for a search. */
        public FetchRequest fetch() {
            return fetch;
        }

        public Search search() {
            return search;
        }

        public int leaf() {
            return sub.leaf();
        }

        /** The partition a search copy searches; -1 for a fetch. */
        public int partition() {
            return sub.tracePartition();
        }

        public long requestId() {
            return sub.requestId();
        }

        public Priority priority() {
            return sub.priority();
        }

        public SubRequestTrace.Kind kind() {
            return sub.kind();
        }

        public long sentNanos() {
            return sub.sentNanos();
        }

        /** The time the leaf may spend, from when it receives the copy. */
        public long budgetNanos() {
            return budgetNanos;
        }

        /** The leaf of the tied twin this copy names, or -1 when it names none. */
        public int twinLeaf() {
            return twinLeaf;
        }

        public long twinRequestId() {
            return twinRequestId;
        }

        /** How long the twin's leaf holds this copy before it may start it (0: none). */
        public long twinGraceNanos() {
            return twinGraceNanos;
        }
    }

    /** The leaves as the searches see them, as one event loop's connections would show them. */
    private final class View implements LeafView {
        @Override
        public boolean isReady(int leaf) {
            return ready[leaf];
        }

        @Override
        public int outstanding(int leaf) {
            return outstanding[leaf];
        }

        @Override
        public LeafLoad load(int leaf) {
            return ledgers[leaf].load();
        }

        @Override
        public boolean stalled(int leaf) {
            return stallRule != null
                    && ledgers[leaf].load().stalled(stallRule, outstanding[leaf], context.ticker().nanoTime());
        }

        @Override
        public boolean onProbation(int leaf) {
            return context.cluster().probation().onProbation(leaf);
        }

        @Override
        public boolean stale(int partition, int leaf) {
            return context.cluster().staleReplicas().stale(partition, leaf);
        }

        @Override
        public double share(int leaf) {
            var slowStart = context.cluster().slowStart();
            return slowStart.inSlowStart(leaf) ? slowStart.share(leaf, context.ticker().nanoTime()) : 1;
        }

        @Override
        public boolean overtaken(int leaf, long sentNanos, Priority priority) {
            return ledgers[leaf].progress().overtaken(sentNanos, priority);
        }

        @Override
        public boolean doneSince(int leaf, long nanos) {
            return ledgers[leaf].progress().doneSince(nanos);
        }
    }
}
