package io.hedgerow.root.metrics;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumMap;
import java.util.Map;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The root's own time for each search, from the first byte of the request in to the last byte of
 * the response out, by outcome, in HdrHistogram form so a load generator can subtract two readings
 * and compare the server's distribution over one phase with its own: a slow generator then cannot
 * pass for a slow server (nor the other way round).
 *
 * <p><b>Assumptions and guarantees.</b> {@link #record} is wait-free and may be called from any
 * thread (the event loops); {@link #snapshot} may be called from any thread and returns the
 * cumulative histograms since the root started.
 */
public final class RequestLatency {
    /** Microseconds, from 1 us to 60 s, three significant digits: the load generator's own shape. */
    public static final long HIGHEST_MICROS = 60_000_000L;
    public static final int SIGNIFICANT_DIGITS = 3;

    /** How a search ended, as the client saw it. */
    public enum Outcome {
        /** 200 with every partition answered. */
        COMPLETE,
        /** 200 with less than full coverage. */
        TAINTED,
        /** Any other status but admission's: a bad query, a timeout, nothing answered. */
        ERROR,
        /**
         * Refused at once by admission control (503 {@code overloaded}) or because the root is
         * stopping (503 {@code shutting_down}): the cost of saying no, which must stay small.
         */
        REFUSED
    }

    private final Map<Outcome, Recorder> recorders = new EnumMap<>(Outcome.class);
    private final Map<Outcome, Histogram> totals = new EnumMap<>(Outcome.class);
    private final Map<Outcome, Histogram> intervals = new EnumMap<>(Outcome.class);

    public RequestLatency() {
        for (Outcome outcome : Outcome.values()) {
            recorders.put(outcome, new Recorder(1, HIGHEST_MICROS, SIGNIFICANT_DIGITS));
            totals.put(outcome, new Histogram(1, HIGHEST_MICROS, SIGNIFICANT_DIGITS));
        }
    }

    public void record(Outcome outcome, long nanos) {
        recorders.get(outcome).recordValue(Math.max(1, Math.min(HIGHEST_MICROS, nanos / 1000)));
    }

    /** Everything recorded since the start, by outcome (copies). */
    public synchronized Map<Outcome, Histogram> snapshot() {
        Map<Outcome, Histogram> copies = new EnumMap<>(Outcome.class);
        for (Outcome outcome : Outcome.values()) {
            Histogram interval = recorders.get(outcome).getIntervalHistogram(intervals.get(outcome));
            intervals.put(outcome, interval);
            totals.get(outcome).add(interval);
            copies.put(outcome, totals.get(outcome).copy());
        }
        return copies;
    }

    /** A histogram in HdrHistogram's compressed encoding, in base64, as {@code /metrics/latency} serves it. */
    public static String encode(Histogram histogram) {
        ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        int length = histogram.encodeIntoCompressedByteBuffer(buffer);
        return Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), length));
    }

    /**
     * The histogram {@link #encode} made.
     *
     * @throws DataFormatException      when the bytes are not a compressed histogram
     * @throws IllegalArgumentException when the text is not base64
     */
    public static Histogram decode(String base64) throws DataFormatException {
        return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(base64)), 0);
    }
}
