package io.hedgerow.root.search;

import io.hedgerow.api.PartitionError;
import io.hedgerow.api.SearchException;
import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Twin;
import io.hedgerow.root.metrics.RootMetrics.RequestError;
import io.hedgerow.root.search.QuerySlots.Outcome;
import io.hedgerow.root.tail.GoodEnoughCutoff;

/**
 * The query phase: one copy of the search per partition (the canary partitions keep theirs), a
 * retry on another replica after a failure, backups or twins through {@link Hedging}, and the end
 * of the phase: every partition settled, the good-enough cutoff passed with {@code min_coverage}
 * of the documents answered, or the deadline (the run's timer).
 */
final class QueryPhase {
    /** Retries per partition after a failure (backups and twins are not retries). */
    static final int MAX_RETRIES = 1;

    private final RunContext ctx;
    private final QuerySlots slots;
    private final RunTimers timers;
    private final Hedging hedging;
    private final SearchRun run;
    private final Shadows shadows;
    private final Outbox out;
    /** Since the start; ends the wait once the complete answers cover {@code min_coverage}. */
    private final long cutoffNanos;
    private boolean cutOff;

    QueryPhase(RunContext ctx, QuerySlots slots, RunTimers timers, Hedging hedging, SearchRun run, Outbox out) {
        this.ctx = ctx;
        this.slots = slots;
        this.timers = timers;
        this.hedging = hedging;
        this.run = run;
        this.shadows = new Shadows(ctx, out);
        this.out = out;
        double minCoverage = ctx.run.minCoverage();
        this.cutoffNanos = minCoverage < 1
                ? ctx.shared.tail().cutoff().cutoffNanos(ctx.requestClass, minCoverage) : Long.MAX_VALUE;
    }

    /** The query phase ended at the good-enough cutoff. */
    boolean cutOff() {
        return cutOff;
    }

    long cutoffNanos() {
        return cutoffNanos;
    }

    /**
     * A copy for every partition not asked yet, a retry for a canary partition that failed, then
     * the timers of hedging and the cutoff. With leaf batching on, the first copies that chose the
     * same leaf go to it in one message ({@link #travelsTogether}).
     */
    void fanOut(long nowNanos) {
        int wave = out.mark();
        for (PartitionSlot slot : slots.all()) {
            if (!run.inQueryPhase()) {
                break;
            }
            if (slot.unsent()) {
                sendFirst(slot, nowNanos);
            } else if (!slot.settled() && slot.outstanding() == 0) {
                afterFailure(slot, nowNanos); // a canary lost with its leaf, or failed
            }
        }
        if (ctx.leafBatching) {
            out.groupByLeaf(wave, this::travelsTogether);
        }
        if (!run.inQueryPhase()) {
            return;
        }
        if (slots.allSettled()) {
            run.endQueryPhase(nowNanos); // the canaries were all there was
            return;
        }
        if (cutoffNanos < ctx.deadlineNanos - ctx.startNanos) {
            timers.arm(RunTimers.Timer.CUTOFF, ctx.startNanos + cutoffNanos);
        }
        hedging.start(nowNanos);
    }

    /**
     * Whether a copy of the fan-out may share its message with others to its leaf: a primary with
     * no tied twin (its leaf's cancel of the twin is per copy) that the root's batch admission does
     * not hold back (it admits copies one by one, each to a place at its leaf). Retries, backups,
     * twins and canaries are sent alone: they race or replace one partition's copy, on their own
     * timing.
     */
    private boolean travelsTogether(Action.SendSearch send) {
        return send.copy().kind() == SubRequestTrace.Kind.PRIMARY && !send.wire().hasTwin()
                && !ctx.heldBackByBatchAdmission(send.copy().priority());
    }

    /** The partition's first copy (naming its tied twin, in tied mode). */
    private void sendFirst(PartitionSlot slot, long nowNanos) {
        int leaf = slots.chooseReplica(slot);
        if (leaf < 0) {
            slots.noReplica(slot);
            return;
        }
        long requestId = ctx.requestIds.getAsLong();
        Twin twin = hedging.planTwin(slot, leaf, requestId);
        ctx.shared.budget().primarySent(nowNanos);
        if (slots.send(slot, leaf, requestId, SubRequestTrace.Kind.PRIMARY, ctx.priority, twin, nowNanos) != null) {
            shadows.afterPrimary(slot.partition(), leaf, nowNanos);
        }
    }

    void onAnswer(SearchCopy copy, SearchResponse response, long nowNanos) {
        Outcome outcome = slots.accept(copy, response, nowNanos);
        switch (outcome) {
            case WON -> endIfDone(nowNanos);
            case LATE -> {
            }
            case BAD_QUERY -> run.fail(RequestError.BAD_QUERY,
                    new SearchException(SearchException.Kind.BAD_QUERY, response.getError()), nowNanos);
            case FAILED, EXPIRED, DROPPED -> afterFailure(slots.slot(copy.partition()), nowNanos);
        }
    }

    void onLost(SearchCopy copy, String reason, long nowNanos) {
        slots.lost(copy, reason, nowNanos);
        afterFailure(slots.slot(copy.partition()), nowNanos);
    }

    /**
     * A copy failed (or was dropped for its twin): unless another copy is out or the partition is
     * answered, one retry on a replica that has not failed it (a leaf that only dropped a tied
     * twin is eligible again), charged to the budget's retry floor unless the copy was lost with
     * its connection; otherwise the partition is given up. A copy that expired is not retried: the deadline is as near for every replica.
     */
    private void afterFailure(PartitionSlot slot, long nowNanos) {
        if (slot.settled() || slot.outstanding() > 0) {
            return;
        }
        boolean expired = slot.failure() != null && slot.failure().kind() == PartitionError.Kind.TIMED_OUT;
        int leaf = expired || slot.retries() >= MAX_RETRIES ? -1 : slots.chooseReplica(slot);
        // A copy lost with its connection (a leaf gone) did no work: its retry replaces it and adds no
        // load, so the budget, which bounds extra load, is not asked. A crash under load fails every
        // copy it held at once; charged, their retries would empty the budget and leave partitions
        // out (or fail routed searches) although their replicas are up.
        if (leaf >= 0 && (slot.lostLast() || ctx.shared.budget().tryRetry())) {
            slot.retried();
            if (slots.send(slot, leaf, ctx.requestIds.getAsLong(), SubRequestTrace.Kind.RETRY, ctx.priority, null,
                    nowNanos) != null) {
                return;
            }
        } else if (leaf >= 0) {
            ctx.metrics().budgetRefused();
        }
        if (slot.failure() == null) {
            slots.noReplica(slot); // dropped for a twin, and no replica left to retry on
        } else {
            slots.giveUp(slot, null);
        }
        endIfDone(nowNanos);
    }

    /** Ends the phase when every partition has settled, or past the cutoff with enough coverage. */
    private void endIfDone(long nowNanos) {
        if (run.inQueryPhase() && (slots.allSettled() || goodEnough(nowNanos))) {
            run.endQueryPhase(nowNanos);
        }
    }

    /** The cutoff passed: end now if what has answered is good enough, else at the next answer that makes it so. */
    void onCutoff(long nowNanos) {
        endIfDone(nowNanos);
    }

    /** Past the cutoff with enough of the documents answered completely; notes that the search was cut off. */
    private boolean goodEnough(long nowNanos) {
        if (nowNanos - ctx.startNanos < cutoffNanos
                || !GoodEnoughCutoff.covers(slots.completeDocsFraction(), ctx.run.minCoverage())) {
            return false;
        }
        cutOff = true;
        return true;
    }
}
