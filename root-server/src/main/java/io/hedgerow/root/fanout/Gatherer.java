package io.hedgerow.root.fanout;

import io.hedgerow.api.SearchResult;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.FetchResponse;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.root.metrics.RootMetrics;
import io.hedgerow.root.search.Action;
import io.hedgerow.root.search.Event;
import io.hedgerow.root.search.FanOutContext;
import io.hedgerow.root.search.LeafLedger;
import io.hedgerow.root.search.SearchRun;
import io.hedgerow.root.search.SubRequest;
import io.hedgerow.root.transport.BatchSends;
import io.hedgerow.root.transport.FetchCall;
import io.hedgerow.root.transport.LoopConnections;
import io.hedgerow.root.transport.QueryCall;
import io.hedgerow.root.transport.QueryCallListener;
import io.hedgerow.root.transport.ShardCall;
import io.hedgerow.root.transport.LeafConnection;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The Netty adapter of one {@link SearchRun}: it turns what the connections report into events
 * (stamped with the root's ticker) and executes the run's actions on them: a send on the leaf's
 * connection of this event loop, a cancel on the wire, the run's one timer through the {@link
 * RunScheduler}, the promise completed. It decides nothing. Batch sub-requests go out through the
 * root's batch admission ({@link BatchSends}), which may hold one at the root until its leaf has a
 * place for it.
 *
 * <p><b>Assumptions and guarantees.</b> Confined to its event loop (the loop of its {@link
 * LoopConnections}); its promise is completed exactly once, on that loop.
 */
final class Gatherer implements QueryCallListener {
    private final SearchRun run;
    private final LoopConnections connections;
    private final Ticker ticker;
    private final RootMetrics metrics;
    private final RunScheduler scheduler;
    private final CompletableFuture<SearchResult> promise;
    private final Map<SubRequest, QueryCall> calls = new IdentityHashMap<>();
    /** Batch sub-requests go out through the root's batch admission. */
    private final BatchSends batch;
    private final Runnable onTimer = this::timerFired;
    private RunScheduler.Scheduled timer;

    Gatherer(SearchRun run, LoopConnections connections, FanOutContext context, RunScheduler scheduler,
            CompletableFuture<SearchResult> promise) {
        this.run = run;
        this.connections = connections;
        this.ticker = context.ticker();
        this.metrics = context.metrics();
        this.scheduler = scheduler;
        this.promise = promise;
        this.batch = new BatchSends(context.costs().batch(), connections.loop(), context.ticker());
    }

    void start() {
        execute(run.start(ticker.nanoTime()));
    }

    @Override
    public RootMetrics metrics() {
        return metrics;
    }

    @Override
    public void answered(ShardCall call, SearchResponse response, long nowNanos) {
        // Its connection booked it (LeafLedger) and hands on no shadow's answer; its clock read is the answer's time.
        batch.answered(call, response.getStatus() == Status.OK, nowNanos);
        execute(run.handle(new Event.Answered(call.copy(), response, nowNanos)));
    }

    @Override
    public void fetched(FetchCall call, FetchResponse response, long nowNanos) {
        batch.ended(call);
        execute(run.handle(new Event.Fetched(call.copy(), response, nowNanos)));
    }

    @Override
    public void lost(QueryCall call, String reason) {
        if (!LeafLedger.runHearsLoss(call.copy())) {
            return;
        }
        batch.ended(call);
        execute(run.handle(new Event.ConnectionLost(call.copy(), reason, ticker.nanoTime())));
    }

    private void timerFired() {
        timer = null;
        execute(run.handle(new Event.TimerFired(ticker.nanoTime())));
    }

    private void execute(List<Action> actions) {
        for (Action action : actions) {
            switch (action) {
                case Action.SendSearch send -> sendSearch(new ShardCall(this, send.copy(),
                        connections.leaf(send.copy().leaf())), send);
                case Action.SendSearches sends -> sendSearches(sends);
                case Action.SendShadow shadow -> {
                    ShardCall call = new ShardCall(this, shadow.copy(), connections.leaf(shadow.copy().leaf()));
                    call.connection().send(call, shadow.wire());
                }
                case Action.SendFetch send -> {
                    FetchCall call = new FetchCall(this, send.copy(), connections.leaf(send.copy().leaf()));
                    calls.put(send.copy(), call);
                    if (batch.holdsBack(call)) {
                        batch.send(call, waitedNanos -> call.connection().send(call, waitedNanos == 0 ? send.wire()
                                : send.wire().toBuilder().setBudgetNanos(lessBudget(send.wire().getBudgetNanos(), waitedNanos)).build()));
                    } else {
                        call.connection().send(call, send.wire());
                    }
                }
                case Action.Cancel cancel -> {
                    QueryCall call = calls.get(cancel.copy());
                    if (call != null && call.connection().cancel(call)) {
                        metrics.cancelSent();
                    }
                    if (call != null) {
                        batch.ended(call);
                    }
                }
                case Action.ArmTimer arm -> {
                    cancelTimer();
                    timer = scheduler.schedule(onTimer, Math.max(0, arm.atNanos() - ticker.nanoTime()));
                }
                case Action.Finish finish -> {
                    cancelTimer();
                    promise.complete(finish.result());
                }
                case Action.Fail fail -> {
                    cancelTimer();
                    promise.completeExceptionally(fail.failure());
                }
            }
        }
    }

    private void sendSearch(ShardCall call, Action.SendSearch send) {
        calls.put(send.copy(), call);
        if (batch.holdsBack(call)) {
            batch.send(call, waitedNanos -> call.connection().send(call, waitedNanos == 0 ? send.wire()
                    : send.wire().toBuilder().setBudgetNanos(lessBudget(send.wire().getBudgetNanos(), waitedNanos)).build()));
        } else {
            call.connection().send(call, send.wire());
        }
    }

    /**
     * Several partitions' copies for one leaf in one message; one by one when its leaf cannot take
     * such a message (an older leaf), or when the batch admission would hold one back (the run
     * groups none of those: it admits copies one at a time).
     */
    private void sendSearches(Action.SendSearches sends) {
        LeafConnection connection = connections.leaf(sends.leaf());
        List<ShardCall> parts = new ArrayList<>(sends.parts().size());
        boolean together = connection.takesSearchParts();
        for (Action.SendSearch part : sends.parts()) {
            ShardCall call = new ShardCall(this, part.copy(), connection);
            together &= !batch.holdsBack(call);
            parts.add(call);
        }
        if (!together) {
            for (int i = 0; i < parts.size(); i++) {
                sendSearch(parts.get(i), sends.parts().get(i));
            }
            return;
        }
        List<io.hedgerow.common.wire.proto.SearchRequest> wires = new ArrayList<>(parts.size());
        for (int i = 0; i < parts.size(); i++) {
            calls.put(parts.get(i).copy(), parts.get(i));
            wires.add(sends.parts().get(i).wire());
        }
        connection.send(parts, wires);
        metrics.searchPartsSent(parts.size());
    }

    /** A leaf budget less the time its sub-request waited at the root (at least 1 ns: 0 would mean none). */
    private static long lessBudget(long budgetNanos, long waitedNanos) {
        return budgetNanos == 0 ? 0 : Math.max(1, budgetNanos - waitedNanos);
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }
}
