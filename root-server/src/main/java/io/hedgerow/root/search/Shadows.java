package io.hedgerow.root.search;

import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.common.wire.proto.Priority;

/**
 * Shadow requests ("The Tail at Scale", latency-induced probation): a leaf on probation gets no
 * primaries, so to learn when it is well again the root sends it sampled copies of real searches,
 * at the leaves' SHADOW class (after every other class), and drops their answers; only their latency
 * counts ({@link io.hedgerow.root.adapt.Probation}). After a partition's primary went elsewhere, each
 * ready, not stalled replica of it on probation gets a copy with probability {@code shadowFraction},
 * charged to the hedge budget as a backup is: shadows are extra load like backups, under one limit.
 */
final class Shadows {
    private final RunContext ctx;
    private final Outbox out;
    private final double fraction;

    Shadows(RunContext ctx, Outbox out) {
        this.ctx = ctx;
        this.out = out;
        this.fraction = ctx.shared.cluster().probation().enabled()
                ? ctx.shared.cluster().config().adaptation().shadowFraction() : 0;
    }

    /** The partition's primary went to {@code primaryLeaf}: shadows of it, sampled, to its replicas on probation. */
    void afterPrimary(int partition, int primaryLeaf, long nowNanos) {
        if (fraction == 0 || ctx.shared.cluster().probation().count() == 0) {
            return;
        }
        for (int leaf : ctx.shared.cluster().assignment().replicasOf(partition)) {
            if (leaf == primaryLeaf || !ctx.leaves.onProbation(leaf) || !ctx.leaves.isReady(leaf)
                    || ctx.leaves.stalled(leaf) || ctx.random.nextDouble() >= fraction) {
                continue;
            }
            if (!ctx.shared.budget().tryBackup()) {
                ctx.metrics().budgetRefused();
                continue;
            }
            long budgetNanos = ctx.leafBudgetNanos(nowNanos);
            if (budgetNanos <= 0) {
                return;
            }
            long requestId = ctx.requestIds.getAsLong();
            SearchCopy copy = new SearchCopy(partition, leaf, requestId, SubRequestTrace.Kind.SHADOW, Priority.SHADOW,
                    nowNanos);
            out.count(SubRequestTrace.Kind.SHADOW);
            out.add(new Action.SendShadow(copy, ctx.wirePrototype.toBuilder()
                    .setRequestId(requestId)
                    .setPartition(partition)
                    .setBudgetNanos(budgetNanos)
                    .setPriority(Priority.SHADOW)
                    .build()));
        }
    }
}
