package io.hedgerow.root.search;

import io.hedgerow.api.HedgeMode;
import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.common.wire.proto.Twin;
import io.hedgerow.root.hedge.HedgeBudget;
import io.hedgerow.root.hedge.RoundTrip;

/**
 * Hedged and tied requests in the query phase ("The Tail at Scale", within-request tail tolerance).
 *
 * <ul>
 *   <li><b>hedged:</b> at the hedge delay, every partition still waiting on its copy gets a backup
 *       on another ready replica, at the leaves' BACKUP class, if the {@link HedgeBudget} allows.
 *       Where a partition has a third replica (configured, or a hot partition's extra copy), a
 *       second round one hedge delay later gives it a third copy if it still waits on both
 *       (budgeted too), and so on, a round per replica ({@link RunContext#hedgeRounds}), so that
 *       two delayed copies of one partition no longer own the tail. A backup the budget refuses is tried again
 *       later ({@link RefusedBackups}).</li>
 *   <li><b>tied:</b> each partition's first copy names a twin on another replica, and the twin
 *       follows after the tied delay unless the partition answered; the leaf that starts one copy
 *       cancels the other. A twin is charged to the budget when its first copy goes out (that copy
 *       names it) and given back if it is never sent; a partition whose twin the budget refuses
 *       gets no twin.</li>
 * </ul>
 */
final class Hedging {
    private final RunContext ctx;
    private final QuerySlots slots;
    private final RunTimers timers;
    private int round;
    private long delayNanos;
    private final RefusedBackups refusedBackups = new RefusedBackups();
    /** Tied mode: the delay before the twins, and the grace the twin's leaf gives the first copy's cancel. */
    private long tiedDelayNanos;

    Hedging(RunContext ctx, QuerySlots slots, RunTimers timers) {
        this.ctx = ctx;
        this.slots = slots;
        this.timers = timers;
    }

    /** Arms the first hedge round (hedged) or the twins (tied), as the fan-out is sent. */
    void start(long nowNanos) {
        switch (ctx.hedgeMode) {
            case HEDGED -> {
                delayNanos = ctx.searchHedgeDelayNanos();
                ctx.metrics().hedgeDelayUsed(delayNanos);
                if (ctx.hedgeRounds() > 0) {
                    timers.arm(RunTimers.Timer.HEDGE, nowNanos + delayNanos);
                }
            }
            case TIED -> {
                tiedDelayNanos = deriveTiedDelayNanos();
                if (tiedDelayNanos <= 0) {
                    onTwinsTimer(nowNanos);
                } else {
                    timers.arm(RunTimers.Timer.TWINS, nowNanos + tiedDelayNanos);
                }
            }
            case OFF -> {
            }
        }
    }

    /**
     * Tied mode: chooses the twin of a partition's first copy (going to {@code firstLeaf}) and
     * charges it to the budget.
     *
     * @return the twin the first copy names, or null (not tied, no other replica, or no budget)
     */
    Twin planTwin(PartitionSlot slot, int firstLeaf, long firstRequestId) {
        if (ctx.hedgeMode != HedgeMode.TIED) {
            return null;
        }
        int other = ctx.chooseInSyncReplica(slot.partition(), slot.excludedLeaves().with(firstLeaf));
        if (other < 0) {
            return null;
        }
        if (!ctx.shared.budget().tryBackup()) {
            ctx.metrics().budgetRefused();
            return null;
        }
        long twinRequestId = ctx.requestIds.getAsLong();
        slot.planTwin(new PartitionSlot.TwinPlan(other, twinRequestId, firstRequestId, firstLeaf));
        return ctx.twinOf(other, twinRequestId);
    }

    /** A hedge round: a backup for each partition still waiting on as many copies as rounds so far. */
    void onHedgeTimer(long nowNanos) {
        if (refusedBackups.startsRound()) {
            round++;
        }
        boolean anotherRound = false;
        boolean refused = false;
        for (PartitionSlot slot : slots.all()) {
            if (slot.settled() || slot.outstanding() == 0 || slot.backups() >= round) {
                continue;
            }
            int leaf = ctx.chooseInSyncReplica(slot.partition(), slot.excludedLeaves());
            if (leaf < 0) {
                continue; // no other in-sync replica is ready: nothing to hedge with
            }
            if (!ctx.shared.budget().tryBackup()) {
                ctx.metrics().budgetRefused();
                refused = true;
                continue;
            }
            slot.hedged();
            if (slots.send(slot, leaf, ctx.requestIds.getAsLong(), SubRequestTrace.Kind.BACKUP, ctx.backupPriority, null,
                    nowNanos) == null) {
                return; // the deadline is due
            }
            anotherRound = true;
        }
        if (refused) {
            timers.arm(RunTimers.Timer.HEDGE, nowNanos + refusedBackups.retryAfterNanos(delayNanos));
        } else if (anotherRound && round < ctx.hedgeRounds()) {
            timers.arm(RunTimers.Timer.HEDGE, nowNanos + delayNanos);
        }
    }

    /** The tied delay passed: the twin of each partition not answered yet. */
    void onTwinsTimer(long nowNanos) {
        for (PartitionSlot slot : slots.all()) {
            PartitionSlot.TwinPlan twin = slot.twin();
            if (twin == null) {
                continue;
            }
            slot.clearTwin();
            if (slot.settled() || slot.outstanding() == 0 || slot.excludedLeaves().contains(twin.leaf())
                    || !ctx.leaves.isReady(twin.leaf())) {
                ctx.shared.budget().giveBack();
                continue;
            }
            slot.hedged();
            ctx.metrics().tiedPairSent();
            // The twin waits at its leaf for as long again as the tied delay before it may start: the
            // first copy's cancel, sent by its leaf as it starts, can still drop it there.
            slots.send(slot, twin.leaf(), twin.requestId(), SubRequestTrace.Kind.TWIN, ctx.priority,
                    ctx.twinOf(twin.firstLeaf(), twin.firstRequestId(), tiedDelayNanos), nowNanos);
        }
    }

    /** The phase ended: twins never sent give their charge back. */
    void end() {
        for (PartitionSlot slot : slots.all()) {
            if (slot.twin() != null) {
                slot.clearTwin();
                ctx.shared.budget().giveBack();
            }
        }
    }

    /**
     * The tied delay: about two network round trips to the slowest leaf, so a first copy that starts
     * at once can cancel its twin before the twin is even sent. The twin's grace at its leaf is the
     * same again, for a first copy that starts just as its twin is sent.
     */
    private long deriveTiedDelayNanos() {
        long network = 0;
        for (int leaf = 0; leaf < ctx.shared.roundTrip().leaves(); leaf++) {
            long leafNetwork = ctx.shared.roundTrip().networkNanos(leaf);
            if (leafNetwork == RoundTrip.UNKNOWN) {
                network = RoundTrip.UNKNOWN; // not measured yet: the longest tied delay
                break;
            }
            network = Math.max(network, leafNetwork);
        }
        return RoundTrip.tiedDelayNanos(ctx.shared.cluster().config().hedge(), network, network);
    }
}
