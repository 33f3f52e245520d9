package io.hedgerow.loadgen.run;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.loadgen.http.ResponseListener;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * Records every request of a phase: latency from the request's intended start (so a stall of the
 * server shows as the latency of everything that should have started during it), status, taint
 * and the coverage of tainted answers.
 *
 * <p><b>Assumptions and guarantees.</b> One writer: the client's event loop calls the listener
 * methods and {@link #dropped()}. Any one other thread may call {@link #interval()} and the
 * counters at any time (HdrHistogram's {@link SingleWriterRecorder} makes the swap wait-free for
 * the writer).
 */
public final class PhaseRecorder implements ResponseListener {
    /** Latency is recorded in microseconds, from 1 us to 60 s, to 3 significant digits. */
    public static final long HIGHEST_MICROS = 60_000_000L;

    private final Ticker ticker;
    private final SingleWriterRecorder recorder = new SingleWriterRecorder(1, HIGHEST_MICROS, 3);
    private final Histogram total = new Histogram(1, HIGHEST_MICROS, 3);
    private final LongAdder completed = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final LongAdder tainted = new LongAdder();
    private final DoubleAdder taintedDocsFraction = new DoubleAdder();
    private final LongAdder taintedWithCoverage = new LongAdder();
    private final LongAdder dropped = new LongAdder();
    private final Map<String, LongAdder> errorReasons = new ConcurrentHashMap<>();
    private Histogram interval;

    public PhaseRecorder(Ticker ticker) {
        this.ticker = ticker;
    }

    @Override
    public void completed(long intendedNanos, int status, boolean taintedResult, double docsFraction) {
        record(intendedNanos);
        if (status != 200) {
            error("HTTP " + status);
        } else if (taintedResult) {
            tainted.increment();
            if (!Double.isNaN(docsFraction)) {
                taintedDocsFraction.add(docsFraction);
                taintedWithCoverage.increment();
            }
        }
    }

    @Override
    public void failed(long intendedNanos, String reason) {
        record(intendedNanos);
        error(reason);
    }

    /** A request the in-flight cap kept from being sent. */
    public void dropped() {
        dropped.increment();
    }

    private void record(long intendedNanos) {
        long micros = (ticker.nanoTime() - intendedNanos) / 1000;
        recorder.recordValue(Math.max(1, Math.min(HIGHEST_MICROS, micros)));
        completed.increment();
    }

    private void error(String reason) {
        errors.increment();
        errorReasons.computeIfAbsent(reason, r -> new LongAdder()).increment();
    }

    /**
     * Latency recorded since the last call, which is also added to the phase total. Call from
     * one thread only.
     */
    public Histogram interval() {
        interval = recorder.getIntervalHistogram(interval);
        total.add(interval);
        return interval;
    }

    /** Everything recorded so far (after a final {@link #interval()}). */
    public Histogram total() {
        return total;
    }

    public long completed() {
        return completed.sum();
    }

    public long errors() {
        return errors.sum();
    }

    public long tainted() {
        return tainted.sum();
    }

    /**
     * The mean document coverage (0..1) of the tainted answers that said theirs, or null when none
     * did: how much of the corpus a good-enough result still covered.
     */
    public Double taintedCoverage() {
        long count = taintedWithCoverage.sum();
        return count == 0 ? null : taintedDocsFraction.sum() / count;
    }

    public long droppedCount() {
        return dropped.sum();
    }

    /** Why requests failed, with counts. */
    public Map<String, Long> errorReasons() {
        Map<String, Long> reasons = new java.util.TreeMap<>();
        errorReasons.forEach((reason, count) -> reasons.put(reason, count.sum()));
        return reasons;
    }
}
