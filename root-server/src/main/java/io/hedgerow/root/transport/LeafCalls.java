package io.hedgerow.root.transport;

import io.netty.util.collection.LongObjectHashMap;
import java.util.ArrayList;
import java.util.List;

/**
 * The calls one connection has sent its leaf and not had answered, by request id: those the root
 * waits on, and those it cancelled that the leaf still holds until its one answer to each says
 * what the cancel did. Confined to the connection's event loop.
 */
final class LeafCalls {
    /** Bounds the cancelled calls: a leaf that never answers cannot grow them for ever. */
    private static final int MAX_CANCELLED = 1 << 16;

    private final LongObjectHashMap<LeafCall> pending = new LongObjectHashMap<>();
    private final LongObjectHashMap<QueryCall> cancelled = new LongObjectHashMap<>();

    /**
     * Calls the leaf has not answered: those waited on and those cancelled at the root. A leaf whose
     * calls were all hedged away and cancelled is therefore not idle: it still owes every answer.
     */
    int outstanding() {
        return pending.size() + cancelled.size();
    }

    void sent(LeafCall call) {
        pending.put(call.requestId(), call);
    }

    /** The call waited on for {@code requestId}, no longer waited on; null when none is. */
    LeafCall answered(long requestId) {
        return pending.remove(requestId);
    }

    /** Stops waiting for {@code call}; true when it was waited on. */
    boolean forget(LeafCall call) {
        return pending.remove(call.requestId()) != null;
    }

    /** The leaf was told to drop {@code call}, no longer waited on: its answer is still owed. */
    void cancelled(QueryCall call) {
        if (cancelled.size() >= MAX_CANCELLED) {
            cancelled.clear();
        }
        cancelled.put(call.requestId(), call);
    }

    /** An answer to a call the root had cancelled: the call, no longer owed, or null when none waited for it. */
    QueryCall answeredAfterCancel(long requestId) {
        return cancelled.remove(requestId);
    }

    /** The connection closed: nothing is owed any more; the calls waited on, to fail. */
    List<LeafCall> lost() {
        cancelled.clear();
        if (pending.isEmpty()) {
            return List.of();
        }
        List<LeafCall> lost = new ArrayList<>(pending.values());
        pending.clear();
        return lost;
    }
}
