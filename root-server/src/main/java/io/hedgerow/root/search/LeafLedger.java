package io.hedgerow.root.search;

import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.common.wire.proto.Priority;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.root.adapt.LeafLoad;
import io.hedgerow.root.adapt.Probation;
import io.hedgerow.root.adapt.SlowStart;
import io.hedgerow.root.cluster.PartitionLoad;
import io.hedgerow.root.metrics.RootMetrics;
import io.hedgerow.root.metrics.RootMetrics.CancelOutcome;

/**
 * What one connection (or the simulator's stand-in for one) books of its leaf for every copy it
 * sends and every answer it hears: the leaf's load and silence ({@link LeafLoad}, for the replica
 * choice and stall detection), its progress ({@link LeafProgress}, for the canary check), latency
 * samples for {@link Probation} and {@link SlowStart}, the partition's load for the placement, and
 * what a cancel did. The one place these rules live: the server's {@code LeafConnection} and the
 * simulator's {@code DetachedRoot} both call it, so the simulator cannot learn otherwise than a
 * connection does.
 *
 * <p>The rules, per search answer: the leaf was heard from; an OK answer that is not batch work is a
 * latency sample whether the root still waited for it or had cancelled it (a slow leaf's copies are
 * the ones cancelled), except that one the cancel cut short is only a lower bound, for probation; the partition's load and the leaf's progress count only answers the root
 * waited for (a shadow's included: the leaf did that work in its turn); the run hears them unless
 * they answer a shadow copy, which only measures the leaf.
 *
 * <p><b>Assumptions and guarantees.</b> Confined to one event loop (or the simulator's thread);
 * times come in with the calls. The probation, slow start and partition load it feeds are shared
 * and thread-safe.
 */
public final class LeafLedger {
    private final int leaf;
    private final Probation probation;
    private final SlowStart slowStart;
    private final PartitionLoad partitionLoad;
    private final LeafLoad load = new LeafLoad();
    private final LeafProgress progress = new LeafProgress();

    public LeafLedger(int leaf, Probation probation, SlowStart slowStart, PartitionLoad partitionLoad) {
        this.leaf = leaf;
        this.probation = probation;
        this.slowStart = slowStart;
        this.partitionLoad = partitionLoad;
    }

    public LeafLoad load() {
        return load;
    }

    /** How far the leaf has got through what was sent this way. */
    public LeafProgress progress() {
        return progress;
    }

    /** A call goes out at {@code nowNanos}, with {@code outstandingBefore} already owed. */
    public void sent(long nowNanos, int outstandingBefore) {
        load.sent(nowNanos, outstandingBefore);
    }

    /** Any answer came at {@code nowNanos} (one nobody waits for included): the leaf is not silent. */
    public void heard(long nowNanos) {
        load.heard(nowNanos);
    }

    /**
     * The leaf answered {@code copy}, a search copy the root still waited for, at {@code nowNanos}.
     *
     * @return true when the run is to hear the answer: false for a shadow copy
     */
    public boolean answered(SearchCopy copy, SearchResponse response, long nowNanos) {
        heard(nowNanos);
        partitionLoad.record(response.getPartition(), response.getServiceNanos());
        sample(copy, response, nowNanos);
        if (response.getStatus() == Status.OK) {
            // Only work done says the leaf is alive and how far it got: a busy or expired answer
            // comes from a leaf that may be stalled, and jumps its queue.
            progress.done(nowNanos, copy.sentNanos(), copy.priority());
        }
        return copy.kind() != SubRequestTrace.Kind.SHADOW;
    }

    /**
     * The leaf answered {@code copy}, a search copy the root had cancelled, at {@code nowNanos}
     * (maybe after its search ended): a latency sample, and what the cancel did.
     */
    public void answeredAfterCancel(SearchCopy copy, SearchResponse response, long nowNanos, RootMetrics metrics) {
        heard(nowNanos);
        sample(copy, response, nowNanos);
        countCancel(copy, response.getStatus(), response.getCutShort(), metrics);
    }

    /** The leaf answered a fetch the root waited for, at {@code nowNanos}. */
    public void fetched(long nowNanos) {
        heard(nowNanos);
    }

    /** The leaf answered {@code copy}, a fetch the root had cancelled, at {@code nowNanos}. */
    public void fetchedAfterCancel(SubRequest copy, Status status, long nowNanos, RootMetrics metrics) {
        heard(nowNanos);
        countCancel(copy, status, false, metrics);
    }

    /**
     * Whether the run hears of the loss of {@code copy}'s connection: not for a shadow (nothing waits
     * for it) nor for a copy it cancelled (it stopped waiting).
     */
    public static boolean runHearsLoss(SubRequest copy) {
        return !copy.cancelled() && copy.kind() != SubRequestTrace.Kind.SHADOW;
    }

    /**
     * An OK search answer that is not batch work (queued behind the rest) is a sample of the leaf's
     * latency: for its load, probation and slow start; cut short by a cancel, a lower bound for
     * probation only.
     */
    private void sample(SubRequest copy, SearchResponse response, long nowNanos) {
        if (response.getStatus() != Status.OK || copy.priority() == Priority.BATCH) {
            return;
        }
        long roundTripNanos = nowNanos - copy.sentNanos();
        if (response.getCutShort()) {
            // Stopped by the cancel: the round trip only bounds the leaf's latency from below (a slow
            // leaf's copies are the ones cancelled early), so it may raise probation's estimate but
            // tells C3's ranking and slow start nothing.
            probation.recordAtLeast(leaf, roundTripNanos, nowNanos);
            return;
        }
        load.searched(nowNanos, roundTripNanos, response.getServiceNanos(), response.getQueueLength());
        probation.record(leaf, roundTripNanos, nowNanos);
        slowStart.record(leaf, roundTripNanos);
    }

    /**
     * The answer to a cancelled copy says whether the cancel came in time ({@link Status#CANCELLED}),
     * stopped the work ({@code cutShort}), or was too late, and for a tied pair whether both ran.
     */
    private static void countCancel(SubRequest copy, Status status, boolean cutShort, RootMetrics metrics) {
        CancelOutcome outcome = switch (status) {
            case CANCELLED, BUSY, EXPIRED -> CancelOutcome.DROPPED_QUEUED;
            case OK -> cutShort ? CancelOutcome.STOPPED_RUNNING : CancelOutcome.TOO_LATE;
            default -> null;
        };
        if (outcome == null) {
            return;
        }
        metrics.cancelled(outcome);
        if (status == Status.OK && copy instanceof SearchCopy search && search.tiedLoser()) {
            metrics.tiedBothRan();
        }
    }
}
