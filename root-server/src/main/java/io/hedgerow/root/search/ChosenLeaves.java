package io.hedgerow.root.search;

import io.hedgerow.common.wire.proto.Priority;
import io.hedgerow.root.adapt.LeafLoad;
import java.util.Arrays;

/**
 * The leaves as one search sees them while it decides, with the copies it has chosen and not yet
 * handed to its adapter counted as outstanding. A run makes all the choices of one event (every
 * partition's first copy, a hedge round's backups) before the adapter sends any of them, so without
 * this every choice of a fan-out would see the load as it was when the search started, and one
 * search would pile onto whichever replicas looked best at that instant. The count of a leaf is
 * what the ranking reads ({@link DispatchPolicy.ReplicaView#outstanding}: C3's queue estimate, or
 * the fewest outstanding); it is cleared once the actions are handed over, when the adapter's own
 * count takes over.
 *
 * <p><b>Assumptions and guarantees.</b> Confined to its search, like the run.
 */
final class ChosenLeaves implements LeafView {
    private final LeafView leaves;
    /** Copies chosen per leaf since the last hand-over; allocated at the first choice. */
    private int[] chosen;
    /** The leaves with a count, to clear them without a pass over every leaf. */
    private int[] touched = new int[8];
    private int touchedCount;

    ChosenLeaves(LeafView leaves) {
        this.leaves = leaves;
    }

    /** A copy to {@code leaf} is chosen, to be sent with this event's actions. */
    void chose(int leaf, int leafCount) {
        if (chosen == null) {
            chosen = new int[leafCount];
        }
        if (chosen[leaf]++ == 0) {
            if (touchedCount == touched.length) {
                touched = Arrays.copyOf(touched, touchedCount * 2);
            }
            touched[touchedCount++] = leaf;
        }
    }

    /** The actions went to the adapter: what they send is its to count now. */
    void handedOver() {
        for (int i = 0; i < touchedCount; i++) {
            chosen[touched[i]] = 0;
        }
        touchedCount = 0;
    }

    @Override
    public int outstanding(int leaf) {
        int own = chosen == null || leaf >= chosen.length ? 0 : chosen[leaf];
        return leaves.outstanding(leaf) + own;
    }

    @Override
    public boolean isReady(int leaf) {
        return leaves.isReady(leaf);
    }

    @Override
    public LeafLoad load(int leaf) {
        return leaves.load(leaf);
    }

    @Override
    public boolean stalled(int leaf) {
        return leaves.stalled(leaf);
    }

    @Override
    public boolean onProbation(int leaf) {
        return leaves.onProbation(leaf);
    }

    @Override
    public boolean stale(int partition, int leaf) {
        return leaves.stale(partition, leaf);
    }

    @Override
    public double share(int leaf) {
        return leaves.share(leaf);
    }

    @Override
    public boolean overtaken(int leaf, long sentNanos, Priority priority) {
        return leaves.overtaken(leaf, sentNanos, priority);
    }

    @Override
    public boolean doneSince(int leaf, long nanos) {
        return leaves.doneSince(leaf, nanos);
    }
}
