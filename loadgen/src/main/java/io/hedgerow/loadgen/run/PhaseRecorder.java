package io.hedgerow.loadgen.run;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.loadgen.http.Refusals;
import io.hedgerow.loadgen.http.ResponseListener;
import io.hedgerow.loadgen.report.Latencies;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * Records every request of a phase, each outcome apart: complete answers, tainted answers,
 * refusals ({@link Refusals}) and other errors (any other status, or no answer) each have their
 * own latency histogram, so a phase full of fast refusals cannot show a good p99, and how fast
 * the refusals came back is known on its own. Latency counts from the request's intended start (so a
 * stall of the server shows as the latency of everything that should have started during it), and
 * the generator's own lateness, from the intended start to the actual send, is recorded too: a
 * phase whose sends ran late measured the generator, not the server.
 *
 * <p><b>Assumptions and guarantees.</b> One writer: the client's event loop calls the listener
 * methods and {@link #dropped()}. Any one other thread may call {@link #interval()} and
 * {@link #finish()}, and the counters at any time (HdrHistogram's {@link SingleWriterRecorder}
 * makes the swaps wait-free for the writer).
 */
public final class PhaseRecorder implements ResponseListener {
    /** Latency is recorded in microseconds, from 1 us to 60 s, to 3 significant digits. */
    public static final long HIGHEST_MICROS = Latencies.HIGHEST_MICROS;

    private final Ticker ticker;
    private final Channel complete = new Channel();
    private final Channel tainted = new Channel();
    private final Channel refused = new Channel();
    private final Channel errors = new Channel();
    private final Channel lag = new Channel();
    private final LongAdder sent = new LongAdder();
    private final DoubleAdder taintedDocsFraction = new DoubleAdder();
    private final LongAdder taintedWithCoverage = new LongAdder();
    private final LongAdder dropped = new LongAdder();
    private final Map<String, LongAdder> errorReasons = new ConcurrentHashMap<>();
    private Histogram answeredInterval = Latencies.newHistogram();
    /** The response being completed asked for a {@code Retry-After} (heard just before it, on the same loop). */
    private boolean retryAfterHeard;

    public PhaseRecorder(Ticker ticker) {
        this.ticker = ticker;
    }

    /** One kind of sample: a recorder the writer records into, and the phase's total of its intervals. */
    private static final class Channel {
        final SingleWriterRecorder recorder = new SingleWriterRecorder(1, HIGHEST_MICROS, 3);
        final Histogram total = Latencies.newHistogram();
        final LongAdder count = new LongAdder();
        Histogram interval;

        void record(long nanos) {
            recorder.recordValue(Math.max(1, Math.min(HIGHEST_MICROS, nanos / 1000)));
            count.increment();
        }

        Histogram swap() {
            interval = recorder.getIntervalHistogram(interval);
            total.add(interval);
            return interval;
        }
    }

    @Override
    public void sent(long intendedNanos, long sentNanos) {
        sent.increment();
        lag.record(Math.max(0, sentNanos - intendedNanos));
    }

    @Override
    public void retryAfter(long nanos) {
        retryAfterHeard = true;
    }

    @Override
    public void completed(long intendedNanos, int status, boolean taintedResult, double docsFraction, String errorCode) {
        long latencyNanos = ticker.nanoTime() - intendedNanos;
        boolean askedToRetryLater = retryAfterHeard;
        retryAfterHeard = false;
        if (status != 200) {
            (Refusals.isRefusal(status, errorCode, askedToRetryLater) ? refused : errors).record(latencyNanos);
            error(errorCode == null ? "HTTP " + status : "HTTP " + status + " " + errorCode);
        } else if (taintedResult) {
            tainted.record(latencyNanos);
            if (!Double.isNaN(docsFraction)) {
                taintedDocsFraction.add(docsFraction);
                taintedWithCoverage.increment();
            }
        } else {
            complete.record(latencyNanos);
        }
    }

    @Override
    public void failed(long intendedNanos, String reason) {
        errors.record(ticker.nanoTime() - intendedNanos);
        error(reason);
    }

    /** A request the in-flight cap kept from being sent. */
    public void dropped() {
        dropped.increment();
    }

    private void error(String reason) {
        errorReasons.computeIfAbsent(reason, r -> new LongAdder()).increment();
    }

    /**
     * Latency of the answers (complete and tainted) recorded since the last call, for a progress
     * line; every interval also goes into the phase's totals. Call from one thread only.
     */
    public Histogram interval() {
        answeredInterval.reset();
        answeredInterval.add(complete.swap());
        answeredInterval.add(tainted.swap());
        refused.swap();
        errors.swap();
        lag.swap();
        return answeredInterval;
    }

    /** Everything recorded in the phase, after a last {@link #interval()}. Call once, at its end. */
    public Latencies finish() {
        interval();
        return Latencies.of(complete.total, tainted.total, refused.total, errors.total, lag.total);
    }

    /** Requests answered or failed so far. */
    public long completed() {
        return complete.count.sum() + tainted.count.sum() + refused.count.sum() + errors.count.sum();
    }

    /** Requests written to a connection so far. */
    public long sentCount() {
        return sent.sum();
    }

    /** Requests that got no answer so far: refusals and other errors. */
    public long errors() {
        return refused.count.sum() + errors.count.sum();
    }

    /** Requests refused so far ({@link Refusals}). */
    public long refused() {
        return refused.count.sum();
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
        Map<String, Long> reasons = new TreeMap<>();
        errorReasons.forEach((reason, count) -> reasons.put(reason, count.sum()));
        return reasons;
    }
}
