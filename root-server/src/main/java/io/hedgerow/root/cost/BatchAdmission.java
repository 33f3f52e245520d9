package io.hedgerow.root.cost;

import io.hedgerow.common.time.Ticker;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The root's admission of batch work to its leaves: at most {@link BatchLimit#limit()} batch
 * sub-requests (searches and fetches) in flight to each leaf at once, the rest waiting at the root
 * in arrival order. A flood of batch queries then cannot fill every leaf's batch queue and take the
 * cores interactive work needs (the leaves order only the work that waits for their workers; the
 * root, the leaves' event loops and the kernel serve whatever arrives), and the limit shrinks as
 * the interactive latency rises ({@link BatchLimit}). Batch waits where waiting costs nothing:
 * at the root, as an entry in a queue.
 *
 * <p>A caller {@link #admit admits} a sub-request: either it may go now, holding a place, or its
 * {@code whenAdmitted} is queued and handed back by a later {@link #release} of that leaf, already
 * holding the place; whoever holds a place releases it when the sub-request ends (answered, lost or
 * cancelled), and runs what the release hands back.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: every event loop of the root admits and
 * releases. A leaf's count and queue change together under that leaf's own lock, held for a few
 * field updates; the limit is read before the lock is taken ({@link BatchLimit#limit()} may close
 * a window, which must not run under a leaf's lock), so a call may act on a limit a few
 * microseconds old, the same as one read just before a window closed. No lock is shared between
 * leaves, and no call runs a waiter itself. No
 * waiter is lost: a place is handed to the oldest waiter of its leaf whenever one frees and the
 * limit allows, and while anything waits for a leaf, that leaf has at least one sub-request in
 * flight whose release will hand over.
 */
public final class BatchAdmission {
    private final BatchAdmissionSettings settings;
    private final BatchLimit limit;
    private final LeafPlaces[] leaves;

    /** One leaf's batch places: its count in flight and its waiters, guarded by this object's monitor. */
    private static final class LeafPlaces {
        int inFlight;
        final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
    }

    public BatchAdmission(BatchAdmissionSettings settings, int leaves, Ticker ticker) {
        if (leaves < 1) {
            throw new IllegalArgumentException("leaves: " + leaves + " (expected: >= 1)");
        }
        this.settings = settings;
        this.limit = new BatchLimit(settings, ticker);
        this.leaves = new LeafPlaces[leaves];
        for (int i = 0; i < leaves; i++) {
            this.leaves[i] = new LeafPlaces();
        }
    }

    /** Whether batch sub-requests are admitted at all (otherwise every one goes at once). */
    public boolean enabled() {
        return settings.enabled();
    }

    /**
     * A batch sub-request for {@code leaf}.
     *
     * @param whenAdmitted queued when the leaf is at its limit; a later release hands it back to run
     * @return true when it may go now (and holds a place); false when {@code whenAdmitted} waits
     */
    public boolean admit(int leaf, Runnable whenAdmitted) {
        if (!settings.enabled()) {
            return true;
        }
        int allowed = limit.limit(); // before the leaf's lock: it may close a window
        LeafPlaces places = leaves[leaf];
        synchronized (places) {
            if (places.waiting.isEmpty() && places.inFlight < allowed) {
                places.inFlight++;
                return true;
            }
            places.waiting.addLast(whenAdmitted);
            return false;
        }
    }

    /**
     * A batch sub-request that must go now whatever the limit (a canary: held back, it would look
     * like a query that hangs its leaf) takes a place, so the leaf's count stays true.
     */
    public void forceAdmit(int leaf) {
        if (settings.enabled()) {
            LeafPlaces places = leaves[leaf];
            synchronized (places) {
                places.inFlight++;
            }
        }
    }

    /**
     * A batch sub-request holding a place at {@code leaf} ended.
     *
     * @return the waiters that now hold places, oldest first: the caller runs each
     */
    public List<Runnable> release(int leaf) {
        if (!settings.enabled()) {
            return List.of();
        }
        int allowed = limit.limit(); // before the leaf's lock: it may close a window
        LeafPlaces places = leaves[leaf];
        synchronized (places) {
            if (places.inFlight <= 0) {
                throw new IllegalStateException("release: leaf " + leaf + " holds no batch place (expected: one release per place)");
            }
            places.inFlight--;
            if (places.waiting.isEmpty()) {
                return List.of();
            }
            List<Runnable> admitted = new ArrayList<>(1);
            while (!places.waiting.isEmpty() && places.inFlight < allowed) {
                places.inFlight++;
                admitted.add(places.waiting.pollFirst());
            }
            return admitted;
        }
    }

    /** An interactive sub-request answered after {@code roundTripNanos}: what the limit watches. */
    public void recordInteractive(long roundTripNanos) {
        if (settings.enabled()) {
            limit.recordInteractive(roundTripNanos);
        }
    }

    /** As {@link #recordInteractive(long)}, answered at {@code nowNanos} on this admission's ticker. */
    public void recordInteractive(long roundTripNanos, long nowNanos) {
        if (settings.enabled()) {
            limit.recordInteractive(roundTripNanos, nowNanos);
        }
    }

    /** The limit per leaf now. */
    public int limit() {
        return limit.limit();
    }

    /** The controller, for reports. */
    public BatchLimit controller() {
        return limit;
    }

    /** The lock guarding {@code leaf}'s places, for a test that holds it to show that other leaves never wait for it. */
    Object lockOf(int leaf) {
        return leaves[leaf];
    }

    public int inFlight(int leaf) {
        LeafPlaces places = leaves[leaf];
        synchronized (places) {
            return places.inFlight;
        }
    }

    public int waiting(int leaf) {
        LeafPlaces places = leaves[leaf];
        synchronized (places) {
            return places.waiting.size();
        }
    }
}
