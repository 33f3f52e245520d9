package io.hedgerow.root.search;

import io.hedgerow.api.HedgeMode;
import io.hedgerow.api.PartitionError;
import io.hedgerow.api.SearchException;
import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.root.metrics.RootMetrics.RequestError;
import io.hedgerow.root.search.QuerySlots.Outcome;
import io.hedgerow.root.tail.Blocklist;
import io.hedgerow.root.tail.CanaryCheck;
import io.hedgerow.root.tail.ScaledPercentile;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The canary phase ("The Tail at Scale", canary requests): the query goes to one partition alone
 * (two with {@code --canaries 2}), and to the others only once that has answered.
 *
 * <ul>
 *   <li><b>Tail-tolerant like any phase.</b> When the search hedges, a canary still out at the hedge
 *       delay gets a backup: a second canary on another leaf, the first kept. The backup is the
 *       first copy of another partition (not yet asked), so it costs no extra leaf request, and
 *       that partition is chosen so that its other replicas are not on the first canary's leaf:
 *       were the query deadly, it could then never take both replicas of one partition.</li>
 *   <li><b>A lost connection is not evidence.</b> A canary whose connection drops gets a second
 *       opinion the same way (which then stands for the backup: no canary goes to a third leaf
 *       at the hedge delay); only a canary lost on two different leaves makes the query
 *       dangerous ({@link CanaryCheck#lost}). A leaf that crashed, restarted or was deployed
 *       under the canary therefore costs nothing: the search answers, tainted at worst.</li>
 *   <li><b>A slow canary</b> is judged at the canary timeout by what its leaf did meanwhile
 *       ({@link CanaryCheck#check}): overtaken by later work on two leaves is dangerous, on one leaf
 *       asks a second opinion, silence asks a second opinion once, queued behind older work waits.</li>
 *   <li><b>An ordinary failure</b> (busy, error, not assigned) is retried on the partition's other
 *       replicas; a canary that failed on every replica it could go to fails the search (503, not
 *       blocklisted) instead of fanning a failing query out to every partition. A retry the budget
 *       refuses is no such evidence: the query gets a second opinion on another partition instead,
 *       and the partition its retry at the fan-out.</li>
 * </ul>
 *
 * <p>The phase passes when as many canaries as asked for have answered, or when one has and no
 * canary is still out; the partitions whose canary copy is still out keep it as their first copy.
 */
final class CanaryPhase {
    private final RunContext ctx;
    private final QuerySlots slots;
    private final RunTimers timers;
    private final SearchRun run;
    private final List<SearchCopy> copies = new ArrayList<>(2);
    private final List<String> lostOn = new ArrayList<>(2);
    /** Every ordinary failure of a canary copy, in order. */
    private final List<PartitionError> failures = new ArrayList<>(2);
    private final ScaledPercentile.Estimate timeout;
    private LeafSet lostLeaves = LeafSet.EMPTY;
    private int passed;
    /** Hedged: the first check, at the hedge delay, sends a backup canary. */
    private boolean backupDue;

    CanaryPhase(RunContext ctx, QuerySlots slots, RunTimers timers, SearchRun run) {
        this.ctx = ctx;
        this.slots = slots;
        this.timers = timers;
        this.run = run;
        this.timeout = ctx.shared.tail().canaryTimeout().estimate(ctx.requestClass);
    }

    /** True when a canary answered. */
    boolean passed() {
        return passed > 0;
    }

    /**
     * Sends the canaries: the first to a random partition with a ready replica, a second (if asked)
     * to the partition half way round, on another leaf.
     *
     * @return false when no partition has a ready replica (there is nothing to canary)
     */
    boolean start(long nowNanos) {
        int targets = ctx.targets.length;
        int start = ctx.random.nextInt(targets);
        int first = sendFirstReady(start, LeafSet.EMPTY, nowNanos);
        if (first < 0) {
            return false;
        }
        if (ctx.run.canaries() > 1) {
            sendFirstReady((first + targets / 2) % targets, outLeaves(), nowNanos);
        }
        backupDue = ctx.hedgeMode != HedgeMode.OFF;
        long checkNanos = backupDue ? Math.min(ctx.searchHedgeDelayNanos(), timeout.nanos()) : timeout.nanos();
        timers.arm(RunTimers.Timer.CANARY_CHECK, Math.min(nowNanos + checkNanos, ctx.deadlineNanos));
        return true;
    }

    /**
     * The canary to the first target partition from position {@code from} in the search's targets on
     * with a ready replica not in {@code avoid}; that position, or -1.
     */
    private int sendFirstReady(int from, LeafSet avoidLeaves, long nowNanos) {
        PartitionSlot[] all = slots.all();
        for (int i = 0; i < all.length; i++) {
            int at = (from + i) % all.length;
            PartitionSlot slot = all[at];
            if (!slot.unsent()) {
                continue;
            }
            int leaf = ctx.chooseReplica(slot.partition(), avoidLeaves);
            if (leaf >= 0) {
                send(slot, leaf, SubRequestTrace.Kind.CANARY, nowNanos);
                return at;
            }
        }
        return -1;
    }

    private void send(PartitionSlot slot, int leaf, SubRequestTrace.Kind kind, long nowNanos) {
        if (slot.unsent()) {
            ctx.shared.budget().primarySent(nowNanos); // the partition's first copy, not an extra one
        }
        slot.markCanary();
        SearchCopy copy = slots.send(slot, leaf, ctx.requestIds.getAsLong(), kind, ctx.priority, null, nowNanos);
        if (copy != null) {
            copies.add(copy);
        }
    }

    void onAnswer(SearchCopy copy, SearchResponse response, long nowNanos) {
        Outcome outcome = slots.accept(copy, response, nowNanos);
        switch (outcome) {
            case WON -> {
                passed++;
                if (passed >= ctx.run.canaries() || leavesOut() == 0) {
                    run.canaryPassed(nowNanos);
                }
            }
            case LATE -> {
            }
            case BAD_QUERY -> run.fail(RequestError.BAD_QUERY,
                    new SearchException(SearchException.Kind.BAD_QUERY, response.getError()), nowNanos);
            case EXPIRED -> {
                failures.add(slots.slot(copy.partition()).failure());
                slots.giveUp(slots.slot(copy.partition()), null);
                settleIfNoneOut(nowNanos);
            }
            case FAILED, DROPPED -> {
                if (outcome == Outcome.FAILED) {
                    failures.add(slots.slot(copy.partition()).failure());
                }
                retry(slots.slot(copy.partition()), nowNanos);
            }
        }
    }

    /** An ordinary failure: the partition's next replica, unless another copy is out or none is left. */
    private void retry(PartitionSlot slot, long nowNanos) {
        if (slot.settled() || slot.outstanding() > 0) {
            return;
        }
        int leaf = slots.chooseReplica(slot);
        if (leaf >= 0 && ctx.shared.budget().tryRetry()) {
            slot.retried();
            send(slot, leaf, SubRequestTrace.Kind.RETRY, nowNanos);
            return;
        }
        if (leaf >= 0) {
            // Refused for want of budget (a crash elsewhere spent it): that proves nothing about the
            // query. The partition waits for the fan-out's retry; the query gets a second opinion, the
            // first copy of another partition on another leaf (no extra request), not a 503.
            ctx.metrics().budgetRefused();
            if (passed == 0 && leavesOut() == 0 && secondOpinion(nowNanos)) {
                return;
            }
        }
        slots.giveUp(slot, null);
        settleIfNoneOut(nowNanos);
    }

    void onLost(SearchCopy copy, String reason, long nowNanos) {
        slots.lost(copy, reason, nowNanos);
        lostLeaves = lostLeaves.with(copy.leaf());
        lostOn.add("on leaf " + ctx.leafName(copy.leaf()) + " when the connection dropped (" + reason + ") after "
                + ctx.elapsedMillis(nowNanos) + " ms");
        switch (CanaryCheck.lost(lostLeaves.size(), leavesOut())) {
            case DANGEROUS -> run.dangerous(Blocklist.Reason.CANARY_CONNECTION_LOST,
                    "was out " + String.join(", and ", lostOn), nowNanos);
            case SECOND_OPINION -> {
                if (!secondOpinion(nowNanos)) {
                    settleIfNoneOut(nowNanos);
                }
            }
            case WAIT -> {
            }
        }
    }

    /** The canary check: at the hedge delay a backup canary, then at the canary timeout the verdict. */
    void onCheck(long nowNanos) {
        if (backupDue) {
            backupDue = false;
            // A lost canary already had its second opinion: a backup now would take the query to a
            // third leaf, which a deadly query would crash too.
            if (leavesOut() < 2 && lostLeaves.isEmpty()) {
                secondOpinion(nowNanos);
            }
            armNextCheck(nowNanos);
            return;
        }
        boolean learnt = timeout.basis() != ScaledPercentile.Basis.TOO_FEW_SAMPLES;
        Set<Integer> leaves = new LinkedHashSet<>();
        int overtaken = 0;
        boolean silent = true;
        for (SearchCopy copy : copies) {
            if (copy.done() || !leaves.add(copy.leaf())) {
                continue;
            }
            // Before the timeout has been learnt (a cold root, a rare query shape) nothing says what
            // is slow for this class: a slow canary then waits, and only a crash counts.
            boolean pastTimeout = learnt && nowNanos - copy.sentNanos() >= timeout.nanos();
            if (pastTimeout && ctx.leaves.overtaken(copy.leaf(), copy.sentNanos(), copy.priority())) {
                overtaken++;
            }
            silent &= !ctx.leaves.doneSince(copy.leaf(), copy.sentNanos());
        }
        switch (CanaryCheck.check(leaves.size(), overtaken, silent)) {
            case DANGEROUS -> {
                run.dangerous(Blocklist.Reason.CANARY_TIMED_OUT, "did not answer within the canary timeout ("
                        + ctx.elapsedMillis(nowNanos) + " ms) on leaves " + names(leaves)
                        + ", which meanwhile answered queries sent after it", nowNanos);
                return;
            }
            case SECOND_OPINION -> secondOpinion(nowNanos);
            case WAIT -> {
            }
        }
        armNextCheck(nowNanos);
    }

    private void armNextCheck(long nowNanos) {
        long next = Long.MAX_VALUE;
        for (SearchCopy copy : copies) {
            long due = copy.sentNanos() + timeout.nanos();
            if (!copy.done() && due - nowNanos > 0 && due < next) {
                next = due;
            }
        }
        if (next == Long.MAX_VALUE) {
            next = nowNanos + timeout.nanos();
        }
        timers.arm(RunTimers.Timer.CANARY_CHECK, Math.min(next, ctx.deadlineNanos));
    }

    /**
     * Another canary, on a leaf that has had none: the first copy of a partition not asked yet, on
     * the leaf whose partitions share fewest replicas with the leaves the canary went to, preferring
     * a partition none of whose other replicas is on those leaves.
     *
     * @return false when no leaf is ready for one
     */
    private boolean secondOpinion(long nowNanos) {
        LeafSet avoid = lostLeaves;
        for (SearchCopy copy : copies) {
            avoid = avoid.with(copy.leaf());
        }
        CanaryPlacement.Choice choice = CanaryPlacement.choose(ctx.shared.cluster().assignment(), ctx.leaves, avoid,
                slots::unsent);
        if (choice == null) {
            return false;
        }
        ctx.metrics().canaryResent();
        send(slots.slot(choice.partition()), choice.leaf(), SubRequestTrace.Kind.CANARY, nowNanos);
        return true;
    }

    /**
     * No canary copy is out: the phase passes if one answered; otherwise the query failed on every
     * replica the canary could reach (not blocklisted: errors and busy leaves are not crashes).
     */
    private void settleIfNoneOut(long nowNanos) {
        if (leavesOut() > 0) {
            return;
        }
        if (passed > 0) {
            run.canaryPassed(nowNanos);
            return;
        }
        boolean timedOut = false;
        List<String> why = new ArrayList<>();
        for (PartitionError error : failures) {
            why.add((error.leaf() == null ? "" : error.leaf() + ": ") + error.detail());
            timedOut |= error.kind() == PartitionError.Kind.TIMED_OUT;
        }
        for (String lost : lostOn) {
            why.add("lost " + lost);
        }
        String detail = "the canary failed on every replica it could be sent to, so the query went no further (it is "
                + "not blocklisted): " + (why.isEmpty() ? "no leaf is ready" : String.join("; ", why));
        run.fail(timedOut ? RequestError.TIMED_OUT : RequestError.UNAVAILABLE, new SearchException(
                timedOut ? SearchException.Kind.TIMED_OUT : SearchException.Kind.UNAVAILABLE, detail), nowNanos);
    }

    /** The leaves holding a canary copy still out. */
    private LeafSet outLeaves() {
        LeafSet leaves = LeafSet.EMPTY;
        for (SearchCopy copy : copies) {
            if (!copy.done()) {
                leaves = leaves.with(copy.leaf());
            }
        }
        return leaves;
    }

    /** Distinct leaves holding a canary copy still out. */
    private int leavesOut() {
        return outLeaves().size();
    }

    private String names(Set<Integer> leaves) {
        List<String> names = new ArrayList<>(leaves.size());
        for (int leaf : leaves) {
            names.add(ctx.leafName(leaf));
        }
        return String.join(" and ", names);
    }
}
