package io.hedgerow.root.search;

import io.hedgerow.api.AggregationResult;
import io.hedgerow.api.SearchException;
import io.hedgerow.api.SearchResult;
import io.hedgerow.root.merge.HitMerger.MergedHit;
import io.hedgerow.root.merge.AggregationMerger;
import io.hedgerow.root.merge.HitMerger;
import io.hedgerow.root.metrics.RootMetrics.RequestError;
import io.hedgerow.root.metrics.RootMetrics;
import io.hedgerow.root.tail.Blocklist;
import java.util.List;
import java.util.Map;

/**
 * One search at the root, as a state machine with no I/O: events in ({@link Event}: an answer, a
 * fetch, a lost connection, a timer at time t), actions out ({@link Action}: send a copy of
 * partition p to leaf L at class C, cancel one, arm the timer at t, finish). It holds no Netty type
 * and no clock of its own: every time comes in with an event, on the root's injected ticker, and
 * the one timer it wants is an action. {@link io.hedgerow.root.fanout.Gatherer} executes the actions over Netty; a test
 * feeds events on a manual clock and reads the actions ("at t=3 ms the hedge timer fires: a backup
 * of partition 2 to leaf 1 at BACKUP"), as Vespa's {@code InterleavedSearchInvokerTest} does.
 *
 * <p>A search runs in stages, each its own class:
 * <ol>
 *   <li>{@link CanaryPhase}: the query to one partition alone first (unless it is known safe or
 *       canaries are off), with a backup and second opinions on other leaves;</li>
 *   <li>{@link QueryPhase}: a copy per partition, retries, {@link Hedging} (backups in up to two
 *       rounds, or tied twins), the good-enough cutoff;</li>
 *   <li>{@link FetchPhase}: stored fields and snippets of the merged top k, by document id, hedged
 *       and retried like the query phase;</li>
 * </ol>
 * over per-partition {@link PartitionSlot}s ({@link QuerySlots}) and per-hit {@link HitSlot}s, with
 * the deadline over all of them ({@link RunTimers}). The result is put together by {@link
 * ResultBuilder}. All phases share the root's {@link io.hedgerow.root.hedge.HedgeBudget}.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: one thread at a time (its event loop, or a
 * test). After it has emitted {@link Action.Finish} or {@link Action.Fail}, exactly once, it
 * emits nothing more and ignores events. Every copy it sends is answered to it, lost, or cancelled
 * by it; it never asks twice about one copy.
 */
public final class SearchRun {
    /** Where the search is. */
    enum Stage { CANARY, QUERY, FETCH, DONE }

    private final RunContext ctx;
    private final Outbox out;
    private final RunTimers timers = new RunTimers();
    private final QuerySlots slots;
    private final Hedging hedging;
    private final QueryPhase query;
    private final CanaryPhase canary;
    private FetchPhase fetch;
    private List<MergedHit> merged;
    /** The merged aggregations; null when the request asks none. */
    private Map<String, AggregationResult> aggregations;
    private Stage stage = Stage.QUERY;
    /** The timer the adapter holds for this run, or null. */
    private Long armedAt;

    public SearchRun(RunContext ctx) {
        this.ctx = ctx;
        this.out = new Outbox(ctx.leaves, ctx.shared.cluster().leaves().size());
        this.slots = new QuerySlots(ctx, out);
        this.hedging = new Hedging(ctx, slots, timers);
        this.query = new QueryPhase(ctx, slots, timers, hedging, this, out);
        this.canary = new CanaryPhase(ctx, slots, timers, this);
    }

    Stage stage() {
        return stage;
    }

    /** Starts the search at {@code nowNanos}: canaries (or the fan-out) and the deadline. */
    public List<Action> start(long nowNanos) {
        ctx.metrics().searchStarted();
        timers.arm(RunTimers.Timer.DEADLINE, ctx.deadlineNanos);
        if (ctx.run.canaries() > 0 && ctx.targets.length > 1) {
            stage = Stage.CANARY;
            if (!canary.start(nowNanos)) {
                stage = Stage.QUERY; // no partition has a ready replica: the fan-out finds none either
                query.fanOut(nowNanos);
            }
        } else {
            query.fanOut(nowNanos);
        }
        return drain();
    }

    /** Handles one event; returns what to do about it, in order. */
    public List<Action> handle(Event event) {
        if (stage == Stage.DONE) {
            return List.of();
        }
        long now = event.nowNanos();
        switch (event) {
            case Event.Answered answered -> {
                if (stage == Stage.CANARY) {
                    canary.onAnswer(answered.copy(), answered.response(), now);
                } else if (stage == Stage.QUERY) {
                    query.onAnswer(answered.copy(), answered.response(), now);
                }
            }
            case Event.Fetched fetched -> {
                if (stage == Stage.FETCH) {
                    fetch.onFetched(fetched.copy(), fetched.response(), now);
                }
            }
            case Event.ConnectionLost lost -> {
                switch (lost.copy()) {
                    case SearchCopy copy when stage == Stage.CANARY -> canary.onLost(copy, lost.reason(), now);
                    case SearchCopy copy when stage == Stage.QUERY -> query.onLost(copy, lost.reason(), now);
                    case FetchCopy copy when stage == Stage.FETCH -> fetch.onLost(copy, lost.reason(), now);
                    default -> {
                    }
                }
            }
            case Event.TimerFired fired -> onTimer(now);
        }
        return drain();
    }

    private void onTimer(long now) {
        armedAt = null; // the adapter's timer has fired
        if (timers.take(RunTimers.Timer.DEADLINE, now)) {
            if (stage == Stage.FETCH) {
                finish(now);
            } else {
                endQueryPhase(now);
            }
            return;
        }
        if (stage == Stage.CANARY && timers.take(RunTimers.Timer.CANARY_CHECK, now)) {
            canary.onCheck(now);
        }
        if (stage == Stage.QUERY && timers.take(RunTimers.Timer.CUTOFF, now)) {
            query.onCutoff(now);
        }
        if (stage == Stage.QUERY && timers.take(RunTimers.Timer.HEDGE, now)) {
            hedging.onHedgeTimer(now);
        }
        if (stage == Stage.QUERY && timers.take(RunTimers.Timer.TWINS, now)) {
            hedging.onTwinsTimer(now);
        }
        if (stage == Stage.FETCH && timers.take(RunTimers.Timer.FETCH_HEDGE, now)) {
            fetch.onHedgeTimer(now);
        }
    }

    boolean inQueryPhase() {
        return stage == Stage.QUERY;
    }

    /** The canaries passed: the query goes to every other partition. */
    void canaryPassed(long now) {
        timers.disarm(RunTimers.Timer.CANARY_CHECK);
        stage = Stage.QUERY;
        query.fanOut(now);
    }

    /**
     * The query phase is over (every partition settled, the cutoff, or the deadline): cancels what
     * is still out, then merges, and fetches the top hits' details if the request wants them.
     */
    void endQueryPhase(long now) {
        timers.disarm(RunTimers.Timer.CANARY_CHECK);
        timers.disarm(RunTimers.Timer.CUTOFF);
        timers.disarm(RunTimers.Timer.HEDGE);
        timers.disarm(RunTimers.Timer.TWINS);
        hedging.end();
        slots.cancelAll();
        if (slots.answered() == 0) {
            boolean timedOut = !slots.allSettled();
            String detail = new ResultBuilder(ctx, slots, query.cutOff(), query.cutoffNanos()).describeMissing();
            fail(timedOut ? RequestError.TIMED_OUT : RequestError.UNAVAILABLE, new SearchException(
                    timedOut ? SearchException.Kind.TIMED_OUT : SearchException.Kind.UNAVAILABLE, detail), now);
            return;
        }
        ctx.shared.tail().cutoff().record(ctx.requestClass, ctx.run.minCoverage(), now - ctx.startNanos);
        if (query.cutOff()) {
            ctx.metrics().cutOff();
        }
        merged = HitMerger.merge(slots.answers(), ctx.request.from(), ctx.request.k(), ctx.request.sort());
        if (!ctx.request.aggs().isEmpty()) {
            try {
                aggregations = AggregationMerger.merge(ctx.request.aggs(), slots.answers());
            } catch (IllegalArgumentException e) {
                fail(RequestError.BAD_QUERY, new SearchException(SearchException.Kind.BAD_QUERY, e.getMessage()), now);
                return;
            }
        }
        if (merged.isEmpty() || !(ctx.request.snippets() || ctx.request.returnsFields() || ctx.request.highlight() != null)) {
            finish(now);
            return;
        }
        stage = Stage.FETCH;
        fetch = new FetchPhase(ctx, out, slots, timers, this, merged);
        fetch.start(now);
    }

    /** The search answers with what it has. */
    void finish(long now) {
        if (stage == Stage.DONE) {
            return;
        }
        if (fetch != null) {
            fetch.end();
        }
        stage = Stage.DONE;
        timers.disarmAll();
        slots.learnCost();
        SearchResult result = new ResultBuilder(ctx, slots, query.cutOff(), query.cutoffNanos())
                .build(merged, fetch == null ? null : fetch.hits(), out.sent(), now);
        if (aggregations != null) {
            result = result.withAggregations(aggregations);
        }
        SearchResult served = ctx.shared.tail().served(ctx.run, result, canary.passed());
        ctx.metrics().searchFinished(result.tookNanos(), served.tainted());
        out.add(new Action.Finish(served));
    }

    /** The search failed as a whole; the cache may still have a tainted result that covers more than nothing. */
    void fail(RequestError kind, SearchException failure, long now) {
        if (stage == Stage.DONE) {
            return;
        }
        stage = Stage.DONE;
        timers.disarmAll();
        slots.learnCost();
        hedging.end();
        slots.cancelAll();
        if (fetch != null) {
            fetch.end();
        }
        long tookNanos = now - ctx.startNanos;
        SearchResult cached = ctx.shared.tail().failed(ctx.run, failure, tookNanos);
        if (cached != null) {
            ctx.metrics().searchFinished(tookNanos, cached.tainted());
            out.add(new Action.Finish(cached));
        } else {
            ctx.metrics().searchFailed(kind);
            out.add(new Action.Fail(failure));
        }
    }

    /** A canary came to grief on two leaves: the query fails and is blocklisted. */
    void dangerous(Blocklist.Reason reason, String detail, long now) {
        ctx.metrics().dangerous(reason);
        fail(RequestError.DANGEROUS, ctx.shared.tail().dangerous(ctx.run, reason, detail), now);
    }

    private List<Action> drain() {
        out.countInto(ctx.metrics());
        List<Action> actions = out.drain();
        if (stage != Stage.DONE) {
            Long earliest = timers.earliest();
            if (earliest != null && !earliest.equals(armedAt)) {
                armedAt = earliest;
                actions.add(new Action.ArmTimer(earliest));
            }
        }
        return actions;
    }
}
