package io.hedgerow.leaf.server;

import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * What a leaf did with cancels, tied requests, deadlines and injected faults, counted since it
 * started. Read by tests (through {@link LeafServer#counters()}) and logged in one line when the
 * leaf shuts down; the root's own metrics count the same events from its side.
 *
 * <p><b>Assumptions and guarantees.</b> Every counter is a {@link LongAdder}: incremented from
 * event loops and workers without contention, read with {@link #snapshot()}, whose fields are each
 * exact but not taken at one instant. The twin cancels' delays go to a {@link ConcurrentHistogram}
 * (wait-free recording from event loops); a snapshot's percentiles may miss a delay recorded while
 * it is taken.
 */
public final class LeafCounters {
    final LongAdder rootCancelsReceived = new LongAdder();
    final LongAdder rootCancelsDroppedQueued = new LongAdder();
    final LongAdder rootCancelsStoppedRunning = new LongAdder();
    final LongAdder rootCancelsTooLate = new LongAdder();
    final LongAdder twinCancelsSent = new LongAdder();
    final LongAdder twinCancelSendFailures = new LongAdder();
    /** Twins naming an address that is not one of the cluster's leaves: no cancel was sent there. */
    final LongAdder twinsOutsideCluster = new LongAdder();
    /** Searches and fetches refused while draining (answered BUSY, "draining"). */
    final LongAdder drainRefusals = new LongAdder();
    final LongAdder twinCancelsReceived = new LongAdder();
    final LongAdder twinCancelsDroppedQueued = new LongAdder();
    final LongAdder twinCancelsBothRan = new LongAdder();
    final LongAdder twinCancelsRemembered = new LongAdder();
    final LongAdder tombstonedDrops = new LongAdder();
    final LongAdder expiredAtDequeue = new LongAdder();
    final LongAdder delaysInjected = new LongAdder();
    final LongAdder stallHolds = new LongAdder();
    final LongAdder slicesYielded = new LongAdder();
    final LongAdder expensiveSearches = new LongAdder();
    final LongAdder movedToLane = new LongAdder();
    /** Tasks that ran several partitions' searches of one request ({@link SearchParts}), queued once. */
    final LongAdder searchPartsTasks = new LongAdder();
    final LongAdder twinGraceWaits = new LongAdder();
    final LongAdder twinCancelDelaysNegative = new LongAdder();
    /** Service time of the search answers written, per partition: the load a registered leaf publishes. */
    final ServedLoad servedLoad = new ServedLoad();
    /** Queue and service times of the answered searches and fetches, exported on the leaf's /metrics. */
    final LeafTimings timings = new LeafTimings(servedLoad);
    /** Microseconds from a twin's leaf deciding to cancel to this leaf reading the cancel; auto-resizing. */
    private final ConcurrentHistogram twinCancelDelayMicros = new ConcurrentHistogram(2);

    /**
     * Records how long a twin's cancel took to arrive, by the two leaves' wall clocks. A negative
     * delay (the sender's clock ahead of this one's) is counted apart and not recorded.
     */
    void twinCancelDelay(long delayNanos) {
        if (delayNanos < 0) {
            twinCancelDelaysNegative.increment();
            return;
        }
        twinCancelDelayMicros.recordValue(delayNanos / 1_000);
    }

    /**
     * The counters at one reading.
     *
     * @param rootCancelsReceived       cancels from a root ({@code if_queued} false)
     * @param rootCancelsDroppedQueued  ... that dropped a queued task (answered CANCELLED)
     * @param rootCancelsStoppedRunning ... that stopped a running task (answered cut short)
     * @param rootCancelsTooLate        ... that found the task answered already, or never seen
     * @param twinCancelsSent           cancels written to a twin's leaf when a tied request started
     * @param twinCancelSendFailures    cancels to a twin's leaf dropped: no connection to it, or too many waiting
     * @param twinCancelsReceived       cancels from another leaf ({@code if_queued} true)
     * @param twinCancelsDroppedQueued  ... that dropped the queued twin (answered CANCELLED to its root)
     * @param twinCancelsBothRan        ... that found the twin running: both copies ran
     * @param twinCancelsRemembered     ... for a request not here (yet, or any more), kept as a tombstone
     * @param tombstonedDrops           requests answered CANCELLED on arrival because their twin's cancel came first
     * @param expiredAtDequeue          requests whose deadline passed in the queue: answered EXPIRED, never executed
     * @param delaysInjected            sub-requests held by an injected delay
     * @param stallHolds                times a worker was held by an injected stall, before or during a sub-request
     * @param slicesYielded             times a sliced search yielded its worker to waiting work and queued the rest
     * @param twinGraceWaits            tied requests that waited their grace before they could be queued
     * @param twinCancelDelays          twin cancels received with a send time, whose delay was recorded
     * @param twinCancelDelayP50Micros  ... the median delay from the twin's leaf deciding to cancel to this
     *                                  leaf reading the cancel, in microseconds, by the two leaves' wall clocks
     * @param twinCancelDelayP99Micros  ... the 99th percentile
     * @param twinCancelDelayMaxMicros  ... the longest
     * @param twinCancelDelaysNegative  twin cancels stamped later than they arrived (the clocks disagree): not recorded
     * @param expensiveSearches         searches whose estimated cost put them in the expensive lane
     * @param movedToLane               searches estimated cheap that used a whole slice on a search worker and
     *                                  moved to the expensive lane (none since cheap searches run in one pass)
     */
    public record Snapshot(
            long rootCancelsReceived,
            long rootCancelsDroppedQueued,
            long rootCancelsStoppedRunning,
            long rootCancelsTooLate,
            long twinCancelsSent,
            long twinCancelSendFailures,
            long twinCancelsReceived,
            long twinCancelsDroppedQueued,
            long twinCancelsBothRan,
            long twinCancelsRemembered,
            long tombstonedDrops,
            long expiredAtDequeue,
            long delaysInjected,
            long stallHolds,
            long slicesYielded,
            long twinGraceWaits,
            long twinCancelDelays,
            long twinCancelDelayP50Micros,
            long twinCancelDelayP99Micros,
            long twinCancelDelayMaxMicros,
            long twinCancelDelaysNegative,
            long expensiveSearches,
            long movedToLane) {

        /** One line for the log, e.g. at shutdown. */
        public String describe() {
            return "root cancels " + rootCancelsReceived + " (dropped queued " + rootCancelsDroppedQueued
                    + ", stopped running " + rootCancelsStoppedRunning + ", too late " + rootCancelsTooLate
                    + "); twin cancels sent " + twinCancelsSent + " (failed " + twinCancelSendFailures
                    + "), received " + twinCancelsReceived + " (dropped queued " + twinCancelsDroppedQueued
                    + ", both ran " + twinCancelsBothRan + ", remembered " + twinCancelsRemembered
                    + "), dropped on arrival " + tombstonedDrops + "; expired in queue " + expiredAtDequeue
                    + "; injected delays " + delaysInjected + ", stall holds " + stallHolds
                    + "; slices yielded " + slicesYielded + "; expensive searches " + expensiveSearches
                    + ", moved to the lane after a slice " + movedToLane + "; twin grace waits " + twinGraceWaits
                    + "; twin cancel delay p50 " + twinCancelDelayP50Micros + " us, p99 " + twinCancelDelayP99Micros
                    + " us, max " + twinCancelDelayMaxMicros + " us over " + twinCancelDelays + " (clock skew "
                    + twinCancelDelaysNegative + ")";
        }
    }

    /** Twins that named an address outside the cluster (no cancel sent), since the leaf started. */
    public long twinsOutsideCluster() {
        return twinsOutsideCluster.sum();
    }

    /** Tasks that ran several partitions' searches of one request one after another, since the leaf started. */
    public long searchPartsTasks() {
        return searchPartsTasks.sum();
    }

    /** Searches and fetches refused because the leaf was draining, since it started. */
    public long drainRefusals() {
        return drainRefusals.sum();
    }

    public Snapshot snapshot() {
        ConcurrentHistogram delays = twinCancelDelayMicros.copy();
        return new Snapshot(rootCancelsReceived.sum(), rootCancelsDroppedQueued.sum(), rootCancelsStoppedRunning.sum(),
                rootCancelsTooLate.sum(), twinCancelsSent.sum(), twinCancelSendFailures.sum(), twinCancelsReceived.sum(),
                twinCancelsDroppedQueued.sum(), twinCancelsBothRan.sum(), twinCancelsRemembered.sum(),
                tombstonedDrops.sum(), expiredAtDequeue.sum(), delaysInjected.sum(), stallHolds.sum(),
                slicesYielded.sum(), twinGraceWaits.sum(), delays.getTotalCount(),
                delays.getValueAtPercentile(50), delays.getValueAtPercentile(99), delays.getMaxValue(),
                twinCancelDelaysNegative.sum(), expensiveSearches.sum(), movedToLane.sum());
    }
}
