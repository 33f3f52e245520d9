package io.hedgerow.root.search;

import io.hedgerow.api.HedgeMode;
import io.hedgerow.api.PartitionError;
import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.common.wire.proto.Priority;
import io.hedgerow.common.wire.proto.QueryCost;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Twin;
import io.hedgerow.root.metrics.RootMetrics.SubRequestError;
import io.hedgerow.root.metrics.RootMetrics;

/**
 * The query phase's partitions ({@link PartitionSlot}s) and what every phase does to them alike:
 * send a copy, take in an answer or a lost connection, let the first answer win and cancel the
 * other copies, give a partition up. What to do next (retry, hedge, end the phase) is the phases'
 * decision, from the {@link Outcome} returned here.
 */
final class QuerySlots {

    /** What an answer means for its partition. */
    enum Outcome {
        /** The partition's first answer: it is answered, its other copies cancelled. */
        WON,
        /** An answer for a partition answered already. */
        LATE,
        /** The query is bad everywhere: the search fails. */
        BAD_QUERY,
        /** The copy failed (busy, error, not assigned, lost): its leaf is not asked again. */
        FAILED,
        /** The leaf's deadline passed before it ran the copy: no point in asking another. */
        EXPIRED,
        /** The leaf dropped the copy for its tied twin: nothing ran, the leaf stays eligible. */
        DROPPED
    }

    private final RunContext ctx;
    private final Outbox out;
    /** The slots of the partitions this search asks, in the order of {@link RunContext#targets}. */
    private final PartitionSlot[] slots;
    /** The same slots by partition number; null for a partition the search does not ask. */
    private final PartitionSlot[] byPartition;
    private int answered;
    private int settled;

    /** What this search's answers said it costs, for the root's {@link io.hedgerow.root.cost.QueryCostBook}. */
    private long costEstimate;
    private long costCpuNanos;
    private int costAnswers;

    QuerySlots(RunContext ctx, Outbox out) {
        this.ctx = ctx;
        this.out = out;
        this.slots = new PartitionSlot[ctx.targets.length];
        // Every partition (no routing value): the targets are 0..P-1, so the slots are by partition already.
        this.byPartition = slots.length == ctx.partitions ? slots : new PartitionSlot[ctx.partitions];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = byPartition[ctx.targets[i]] = new PartitionSlot(ctx.targets[i]);
        }
    }

    /** The slot of {@code partition}, one of the search's targets. */
    PartitionSlot slot(int partition) {
        return byPartition[partition];
    }

    /** Whether {@code partition} is one of the search's targets and no copy of it was sent yet. */
    boolean unsent(int partition) {
        PartitionSlot slot = byPartition[partition];
        return slot != null && slot.unsent();
    }

    PartitionSlot[] all() {
        return slots;
    }

    /** Partitions answered (completely or cut short). */
    int answered() {
        return answered;
    }

    boolean allSettled() {
        return settled == slots.length;
    }

    /** The ready replica a new copy of the partition may go to (not one that failed it or holds a copy), or -1. */
    int chooseReplica(PartitionSlot slot) {
        return ctx.chooseReplica(slot.partition(), slot.excludedLeaves());
    }

    /**
     * Sends a copy of the partition's search to {@code leaf}.
     *
     * @return the copy, or null when the deadline has passed (its timer ends the phase)
     */
    SearchCopy send(PartitionSlot slot, int leaf, long requestId, SubRequestTrace.Kind kind, Priority priority,
            Twin twin, long nowNanos) {
        long budgetNanos = ctx.leafBudgetNanos(nowNanos);
        if (budgetNanos <= 0) {
            return null;
        }
        SearchCopy copy = new SearchCopy(slot.partition(), leaf, requestId, kind, priority, nowNanos);
        if (ctx.leaves.stale(slot.partition(), leaf)) {
            copy.markStale(); // the partition's last resort: the result will say so if it wins
        }
        if (slot.unsent()) {
            // The partition's first copy is the one it needs; any other is extra load.
            out.countNeeded(RootMetrics.Phase.QUERY, 1);
        }
        slot.add(copy);
        io.hedgerow.common.wire.proto.SearchRequest.Builder wire = ctx.wirePrototype.toBuilder()
                .setRequestId(requestId)
                .setPartition(slot.partition())
                .setBudgetNanos(budgetNanos);
        if (priority != ctx.priority) {
            wire.setPriority(priority);
        }
        if (twin != null) {
            wire.setTwin(twin);
        }
        out.count(kind);
        out.send(copy, wire.build());
        return copy;
    }

    private void noteCost(QueryCost cost) {
        if (cost.getEstimate() > 0 || cost.getCpuNanos() > 0) {
            costEstimate = Math.max(costEstimate, cost.getEstimate());
            costCpuNanos += cost.getCpuNanos();
            costAnswers++;
        }
    }

    /**
     * The search ended: what it learnt of its query's cost goes to the book, once. Not for a search
     * with aggregations: the book is keyed by the query alone, and an aggregation's reads would raise
     * the hint every plain search of the same query then gets, sending it to the expensive lane. A
     * faceted search gets the plain query's hint, and its leaves count its aggregations themselves.
     * Nor for a search with {@code lang}: it searches per-language copies, not the fields the plain
     * query searches, and in every language ({@code *}) a term lookup per copy, which would raise
     * the plain query's hint as much as the language's own search costs.
     */
    void learnCost() {
        if (costAnswers > 0 && ctx.request.aggs().isEmpty() && ctx.request.lang() == null) {
            ctx.shared.costs().book().learn(ctx.run.fingerprint(), costEstimate, costCpuNanos / costAnswers);
            costAnswers = 0;
        }
    }

    /** Takes in a leaf's answer to {@code copy}: latency, the winner, the failure. */
    Outcome accept(SearchCopy copy, SearchResponse response, long nowNanos) {
        copy.noteAnswer(nowNanos, response.getStatus());
        PartitionSlot slot = byPartition[copy.partition()];
        String leaf = ctx.leafName(copy.leaf());
        return switch (response.getStatus()) {
            case OK -> {
                long roundTripNanos = nowNanos - copy.sentNanos();
                long leafNanos = response.getQueueNanos() + response.getServiceNanos();
                ctx.shared.cluster().leaf(copy.leaf()).answered(roundTripNanos, leafNanos);
                ctx.metrics().subRequestAnswered(copy.leaf(), roundTripNanos, response.getQueueNanos(),
                        response.getServiceNanos(), response.getCost().getCpuNanos());
                ctx.shared.hedgeDelay().record(ctx.requestClass, roundTripNanos, nowNanos);
                ctx.shared.roundTrip().record(copy.leaf(), roundTripNanos, leafNanos);
                noteCost(response.getCost());
                if (slot.settled()) {
                    yield Outcome.LATE;
                }
                win(slot, copy, response, nowNanos);
                yield Outcome.WON;
            }
            case BAD_QUERY -> Outcome.BAD_QUERY;
            case CANCELLED -> Outcome.DROPPED;
            case BUSY -> failed(slot, copy, busy(copy.leaf()), PartitionError.Kind.BUSY, leaf, response.getError());
            case NOT_ASSIGNED -> failed(slot, copy, SubRequestError.NOT_ASSIGNED, PartitionError.Kind.UNAVAILABLE, leaf,
                    response.getError());
            case EXPIRED -> {
                failed(slot, copy, SubRequestError.EXPIRED, PartitionError.Kind.TIMED_OUT, leaf, response.getError());
                yield Outcome.EXPIRED;
            }
            default -> failed(slot, copy, SubRequestError.FAILED, PartitionError.Kind.FAILED, leaf, response.getError());
        };
    }

    /** A busy answer's kind: a draining leaf's refusal is not a sign of load. */
    private SubRequestError busy(int leaf) {
        return ctx.shared.cluster().leaf(leaf).isDraining() ? SubRequestError.DRAINING : SubRequestError.BUSY;
    }

    /** Takes in the loss of {@code copy}'s connection. */
    Outcome lost(SearchCopy copy, String reason, long nowNanos) {
        copy.noteLost(nowNanos);
        PartitionSlot slot = byPartition[copy.partition()];
        String leaf = ctx.leafName(copy.leaf());
        ctx.shared.cluster().leaf(copy.leaf()).failed(reason);
        ctx.metrics().subRequestFailed(SubRequestError.CONNECTION);
        slot.lostOn(copy.leaf(), new PartitionError(slot.partition(), PartitionError.Kind.UNAVAILABLE, leaf, reason));
        return Outcome.FAILED;
    }

    private Outcome failed(PartitionSlot slot, SearchCopy copy, SubRequestError metric, PartitionError.Kind kind,
            String leaf, String detail) {
        ctx.shared.cluster().leaf(copy.leaf()).failed(detail);
        ctx.metrics().subRequestFailed(metric);
        slot.failedOn(copy.leaf(), new PartitionError(slot.partition(), kind, leaf, detail));
        return Outcome.FAILED;
    }

    private void win(PartitionSlot slot, SearchCopy winner, SearchResponse response, long nowNanos) {
        slot.answer(response);
        winner.markUsed();
        answered++;
        settled++;
        if (winner.kind() == SubRequestTrace.Kind.BACKUP) {
            ctx.metrics().backupWon();
        }
        for (SearchCopy copy : slot.copies()) {
            if (copy.done()) {
                continue;
            }
            // A backup that won hides how slow the copy it beat was: that copy's time so far goes
            // into the hedge delay's window as a lower bound of its latency. Otherwise the window
            // would forget exactly the slow answers hedging exists for, and the delay would drift down.
            if (winner.kind() == SubRequestTrace.Kind.BACKUP) {
                ctx.shared.hedgeDelay().record(ctx.requestClass, nowNanos - copy.sentNanos(), nowNanos);
            }
            if (ctx.hedgeMode == HedgeMode.TIED) {
                copy.markTiedLoser();
            }
            out.cancel(copy);
        }
    }

    /** No replica can answer the partition any more; {@code error} says why (null: its last failure). */
    void giveUp(PartitionSlot slot, PartitionError error) {
        if (!slot.settled()) {
            slot.giveUp(error);
            settled++;
        }
    }

    /** No replica of the partition is ready (or every one was tried). */
    void noReplica(PartitionSlot slot) {
        if (slot.failure() == null) {
            ctx.metrics().subRequestFailed(SubRequestError.NO_REPLICA);
            String reason = !ctx.request.allowStale() && ctx.staleReplicaLeft(slot.partition(), slot.excludedLeaves())
                    ? "no in-sync replica of partition " + slot.partition() + " is reachable; its out-of-sync ones miss"
                            + " acknowledged writes (allow_stale=true reads them)"
                    : "no replica of partition " + slot.partition() + " is reachable";
            giveUp(slot, new PartitionError(slot.partition(), PartitionError.Kind.UNAVAILABLE, null, reason));
        } else {
            giveUp(slot, null);
        }
    }

    /** Cancels every copy still out: the phase is over. */
    void cancelAll() {
        for (PartitionSlot slot : slots) {
            for (SearchCopy copy : slot.copies()) {
                out.cancel(copy);
            }
        }
    }

    /** The fraction of the asked partitions' documents held by those that answered completely. */
    double completeDocsFraction() {
        boolean[] complete = new boolean[ctx.partitions];
        for (PartitionSlot slot : slots) {
            complete[slot.partition()] = slot.answered() && !slot.cutShort();
        }
        return ctx.shared.cluster().docsFraction(slots.length == ctx.partitions ? null : ctx.targets, complete);
    }

    /** Partitions whose answer is complete (not cut short). */
    int completeAnswers() {
        int complete = 0;
        for (PartitionSlot slot : slots) {
            if (slot.answered() && !slot.cutShort()) {
                complete++;
            }
        }
        return complete;
    }

    /** The answers by partition, null where none came (or none was asked), for the merge. */
    SearchResponse[] answers() {
        SearchResponse[] answers = new SearchResponse[ctx.partitions];
        for (PartitionSlot slot : slots) {
            answers[slot.partition()] = slot.answer();
        }
        return answers;
    }

    /** True when some partition's winning answer came from an out-of-sync replica. */
    boolean anyStaleAnswer() {
        for (PartitionSlot slot : slots) {
            if (slot.answered()) {
                for (SearchCopy copy : slot.copies()) {
                    if (copy.used() && copy.stale()) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** The leaf whose answer won the partition, or -1. */
    int answeredBy(PartitionSlot slot) {
        for (SearchCopy copy : slot.copies()) {
            if (copy.used()) {
                return copy.leaf();
            }
        }
        return -1;
    }
}
