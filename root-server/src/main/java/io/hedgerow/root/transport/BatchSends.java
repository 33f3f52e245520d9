package io.hedgerow.root.transport;

import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.Priority;
import io.hedgerow.root.cost.BatchAdmission;
import io.hedgerow.root.search.SubRequest;
import io.netty.channel.EventLoop;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.function.LongConsumer;

/**
 * The Netty side of the root's {@link BatchAdmission} for one search: its batch sub-requests go out
 * only when their leaf has a place for them, and give the place back when they end. A sub-request
 * that must wait goes out later, on the search's own event loop, with its leaf budget shortened by
 * the time it waited; one cancelled meanwhile passes its place on at once, and one whose leaf went
 * away meanwhile passes it on and is reported to the search as lost, so it retries elsewhere.
 * Interactive answers feed the admission's latency watch.
 *
 * <p>Canaries are not held back: a canary waiting at the root would look like a query that hangs
 * its leaf. They take a place all the same, so the leaf's count stays true.
 *
 * <p><b>Assumptions and guarantees.</b> Confined to the search's event loop, like its {@link
 * io.hedgerow.root.fanout.Gatherer}; places freed on other loops hand their waiters back to this loop with {@link
 * EventLoop#execute}.
 */
public final class BatchSends {
    private final BatchAdmission admission;
    private final EventLoop loop;
    private final Ticker ticker;
    /** The calls that hold a place at their leaf. */
    private final Set<QueryCall> holding = Collections.newSetFromMap(new IdentityHashMap<>());

    public BatchSends(BatchAdmission admission, EventLoop loop, Ticker ticker) {
        this.admission = admission;
        this.loop = loop;
        this.ticker = ticker;
    }

    /**
     * True when {@code call} goes through the batch admission; the others (interactive sub-requests,
     * or every one when admission is off) are sent directly, at no cost here.
     */
    public boolean holdsBack(QueryCall call) {
        return admission.enabled() && call.copy().priority() == Priority.BATCH;
    }

    /**
     * Sends {@code call} now, or once its leaf has a place for it.
     *
     * @param send sends it; takes how long it waited at the root, in nanoseconds (0 when it did not)
     */
    public void send(QueryCall call, LongConsumer send) {
        SubRequest copy = call.copy();
        if (!holdsBack(call)) {
            send.accept(0);
            return;
        }
        if (copy.kind() == SubRequestTrace.Kind.CANARY) {
            admission.forceAdmit(copy.leaf());
            holding.add(call);
            send.accept(0);
            return;
        }
        long queuedNanos = ticker.nanoTime();
        if (admission.admit(copy.leaf(), () -> loop.execute(() -> admitted(call, send, queuedNanos)))) {
            holding.add(call);
            send.accept(0);
        }
    }

    /** A waiting call got its place (on this loop). */
    private void admitted(QueryCall call, LongConsumer send, long queuedNanos) {
        holding.add(call);
        if (call.isDone()) {
            ended(call); // cancelled while it waited: nothing to send
            return;
        }
        if (!call.connection().isReady()) {
            ended(call);
            call.connectionLost("leaf " + call.connection().status().name() + " went away while the sub-request"
                    + " waited for the root's batch admission");
            return;
        }
        send.accept(ticker.nanoTime() - queuedNanos);
    }

    /** An answer to {@code call} came: an interactive one is a latency sample; the place is free. */
    public void answered(QueryCall call, boolean ok, long nowNanos) {
        if (ok && call.copy().priority() == Priority.INTERACTIVE) {
            admission.recordInteractive(nowNanos - call.copy().sentNanos(), nowNanos);
        }
        ended(call);
    }

    /** {@code call} ended (answered, lost or cancelled): its place, if it held one, goes to the next waiter. */
    public void ended(QueryCall call) {
        if (holding.remove(call)) {
            for (Runnable next : admission.release(call.copy().leaf())) {
                next.run();
            }
        }
    }
}
