package io.hedgerow.root.search;

import io.hedgerow.common.wire.proto.Priority;
import java.util.Arrays;

/**
 * How far one connection's leaf has got through what was sent on that connection: when it last
 * finished a sub-request, and the send time of the newest one it finished, per priority class. The
 * canary check reads it ({@link io.hedgerow.root.tail.CanaryCheck}).
 *
 * <p>Per connection because a connection is one ordered stream: the leaf takes its requests in the
 * order they were sent, and serves each class first in, first out. So a finished request of the
 * canary's class (or a lower one) that was sent after the canary on the same connection means the
 * canary left the queue before it, and is running long. Across connections, or with answers that
 * jump the queue (busy, expired), that conclusion would not hold; only work done counts here.
 *
 * <p><b>Assumptions and guarantees.</b> Confined to the connection's event loop; no
 * synchronization.
 */
public final class LeafProgress {
    private static final int CLASSES = Priority.SHADOW.getNumber() + 1;

    private long lastDoneNanos = Long.MIN_VALUE;
    private final long[] newestDoneSentNanos = new long[CLASSES];

    public LeafProgress() {
        Arrays.fill(newestDoneSentNanos, Long.MIN_VALUE);
    }

    /** The leaf finished, at {@code nowNanos}, a sub-request of this class sent at {@code sentNanos}. */
    public void done(long nowNanos, long sentNanos, Priority priority) {
        lastDoneNanos = nowNanos;
        int rank = rank(priority);
        if (newestDoneSentNanos[rank] == Long.MIN_VALUE || sentNanos - newestDoneSentNanos[rank] > 0) {
            newestDoneSentNanos[rank] = sentNanos;
        }
    }

    /** True when the leaf has finished anything since {@code nanos}. */
    public boolean doneSince(long nanos) {
        return lastDoneNanos != Long.MIN_VALUE && lastDoneNanos - nanos > 0;
    }

    /**
     * True when the leaf has finished a sub-request of the same class as one sent at {@code sentNanos},
     * or of a lower class, that was sent after it: later work overtook it.
     */
    public boolean overtaken(long sentNanos, Priority priority) {
        for (int rank = rank(priority); rank < CLASSES; rank++) {
            long newest = newestDoneSentNanos[rank];
            if (newest != Long.MIN_VALUE && newest - sentNanos > 0) {
                return true;
            }
        }
        return false;
    }

    private static int rank(Priority priority) {
        return Math.min(Math.max(priority.getNumber(), 0), CLASSES - 1);
    }
}
