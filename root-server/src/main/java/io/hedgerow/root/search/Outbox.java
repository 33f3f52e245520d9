package io.hedgerow.root.search;

import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.common.wire.proto.FetchRequest;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.root.metrics.RootMetrics;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The actions one event produced, in order, and every sub-request the search sent (its trace); and
 * what the event sent, by kind, for the root's counters: added once per event ({@link #countInto}),
 * not once per copy, so a fan-out of 16 partitions costs 2 counter updates rather than 32. Every
 * reading of the counters between two events sees what it saw before.
 */
final class Outbox {
    private List<Action> actions = new ArrayList<>(4);
    private final List<SubRequest> sent = new ArrayList<>();
    /** Counts each copy as it is chosen, for the choices after it in the same event. */
    private final ChosenLeaves chosen;
    private final int leafCount;
    /** The enums' values, once: {@code values()} copies its array at every call, and this runs every event. */
    private static final SubRequestTrace.Kind[] KINDS = SubRequestTrace.Kind.values();
    private static final RootMetrics.Phase[] PHASES = RootMetrics.Phase.values();
    /** Copies sent this event, by {@link SubRequestTrace.Kind}, and sub-requests needed, by phase. */
    private final int[] sentByKind = new int[KINDS.length];
    private final int[] neededByPhase = new int[PHASES.length];
    private boolean counted;

    Outbox(ChosenLeaves chosen, int leafCount) {
        this.chosen = chosen;
        this.leafCount = leafCount;
    }

    void send(SearchCopy copy, SearchRequest wire) {
        sent.add(copy);
        chosen.chose(copy.leaf(), leafCount);
        actions.add(new Action.SendSearch(copy, wire));
    }

    void send(FetchCopy copy, FetchRequest wire) {
        sent.add(copy);
        chosen.chose(copy.leaf(), leafCount);
        actions.add(new Action.SendFetch(copy, wire));
    }

    /** A copy of {@code kind} goes out this event (counted in {@code hedgerow_subrequests_total}). */
    void count(SubRequestTrace.Kind kind) {
        sentByKind[kind.ordinal()]++;
        counted = true;
    }

    /** The search needs at least {@code count} more sub-requests in {@code phase} ({@code hedgerow_subrequests_needed_total}). */
    void countNeeded(RootMetrics.Phase phase, int count) {
        if (count > 0) {
            neededByPhase[phase.ordinal()] += count;
            counted = true;
        }
    }

    /** Adds what this event sent to {@code metrics}, one update per kind, and starts the next event's count. */
    void countInto(RootMetrics metrics) {
        if (!counted) {
            return;
        }
        counted = false;
        for (SubRequestTrace.Kind kind : KINDS) {
            if (sentByKind[kind.ordinal()] > 0) {
                metrics.subRequestsSent(kind, sentByKind[kind.ordinal()]);
                sentByKind[kind.ordinal()] = 0;
            }
        }
        for (RootMetrics.Phase phase : PHASES) {
            if (neededByPhase[phase.ordinal()] > 0) {
                metrics.subRequestsNeeded(phase, neededByPhase[phase.ordinal()]);
                neededByPhase[phase.ordinal()] = 0;
            }
        }
    }

    /** Cancels {@code copy} unless it is done already. */
    void cancel(SubRequest copy) {
        if (!copy.done()) {
            copy.markCancelled();
            actions.add(new Action.Cancel(copy));
        }
    }

    void add(Action action) {
        if (action instanceof Action.SendShadow shadow) {
            chosen.chose(shadow.copy().leaf(), leafCount); // a shadow too is work its leaf owes
        }
        actions.add(action);
    }

    /** Where the next action goes: a mark for {@link #groupByLeaf}. */
    int mark() {
        return actions.size();
    }

    /**
     * Puts the {@link Action.SendSearch}es since {@code mark} that {@code groupable} accepts and
     * that go to the same leaf into one {@link Action.SendSearches}, where the first of them was; a
     * leaf with one such copy keeps its {@link Action.SendSearch}. The other actions keep their
     * order, and every copy still comes before anything done to it (a cancel comes later).
     */
    void groupByLeaf(int mark, Predicate<Action.SendSearch> groupable) {
        Map<Integer, List<Action.SendSearch>> byLeaf = null;
        for (int i = mark; i < actions.size(); i++) {
            if (actions.get(i) instanceof Action.SendSearch send && groupable.test(send)) {
                if (byLeaf == null) {
                    byLeaf = new HashMap<>();
                }
                byLeaf.computeIfAbsent(send.copy().leaf(), leaf -> new ArrayList<>(4)).add(send);
            }
        }
        if (byLeaf == null || byLeaf.values().stream().allMatch(sends -> sends.size() < 2)) {
            return;
        }
        List<Action> grouped = new ArrayList<>(actions.subList(0, mark));
        for (int i = mark; i < actions.size(); i++) {
            Action action = actions.get(i);
            List<Action.SendSearch> sends = action instanceof Action.SendSearch send && groupable.test(send)
                    ? byLeaf.get(send.copy().leaf()) : null;
            if (sends == null || sends.size() < 2) {
                grouped.add(action);
            } else if (sends.get(0) == action) {
                grouped.add(new Action.SendSearches(((Action.SendSearch) action).copy().leaf(), sends));
            }
        }
        actions = grouped;
    }

    /** Every sub-request sent, in the order sent. */
    List<SubRequest> sent() {
        return sent;
    }

    /** The actions so far, and a fresh list for the next event; the adapter counts what they send. */
    List<Action> drain() {
        chosen.handedOver();
        List<Action> drained = actions;
        actions = new ArrayList<>(4);
        return drained;
    }
}
