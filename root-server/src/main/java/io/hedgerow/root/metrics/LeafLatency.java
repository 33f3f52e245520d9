package io.hedgerow.root.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Each leaf's sub-request latencies over the root's life, in HdrHistogram form, served on {@code
 * /metrics/leaves} so that a load generator can subtract two readings and keep one phase's, and the
 * simulator can replay them ({@code simulate --service empirical:...}). Per leaf and per phase
 * (search, fetch), three parts of every OK answer:
 * <ul>
 *   <li>{@link Part#SERVICE}: the leaf's own service time, as its answer reports it (from a worker
 *       taking the task to the answer; a search that yields between slices counts its waits);</li>
 *   <li>{@link Part#QUEUE}: the time it waited in the leaf's queue before a worker took it;</li>
 *   <li>{@link Part#ROUND_TRIP}: sent to answered, as the root sees it (queue, service, network
 *       and both ends' event loops).</li>
 *   <li>{@link Part#CPU}: the thread CPU time the leaf reported for it (its worker's, set-up
 *       included; not the frame's reading and writing), when the answer carries one.</li>
 * </ul>
 * The service time is what a simulation replays: its modelled leaf adds the queue, the workers'
 * contention and the network itself, and replaying a round trip would count them twice.
 *
 * <p><b>Assumptions and guarantees.</b> {@link #record} is wait-free (one HdrHistogram {@link
 * Recorder} per leaf, phase and part) and may be called from any thread (the event loops); an
 * answer from a leaf index this instance was not made for is ignored. {@link #snapshot} may be
 * called from any thread and returns copies of the cumulative histograms.
 */
public final class LeafLatency {
    /** Microseconds, from 1 us to 60 s. */
    public static final long HIGHEST_MICROS = 60_000_000L;
    /**
     * Two significant digits (1% resolution) is plenty for a service-time distribution and keeps
     * each of the 24 histograms of a 4-leaf root at about 20 KB instead of 150 KB.
     */
    public static final int SIGNIFICANT_DIGITS = 2;

    /** Which part of an answer's time. */
    public enum Part {
        SERVICE, QUEUE, ROUND_TRIP, CPU;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** One cumulative histogram: a leaf's, for one phase and part. */
    public record Reading(int leaf, RootMetrics.Phase phase, Part part, Histogram histogram) {
    }

    private static final int PHASES = RootMetrics.Phase.values().length;
    private static final int PARTS = Part.values().length;

    private final int leaves;
    /** Indexed by {@link #slot}. */
    private final Recorder[] recorders;
    private final Histogram[] totals;
    private final Histogram[] intervals;

    public LeafLatency(int leaves) {
        if (leaves < 0) {
            throw new IllegalArgumentException("leaves: " + leaves + " (expected: >= 0)");
        }
        this.leaves = leaves;
        int slots = leaves * PHASES * PARTS;
        this.recorders = new Recorder[slots];
        this.totals = new Histogram[slots];
        this.intervals = new Histogram[slots];
        for (int i = 0; i < slots; i++) {
            recorders[i] = new Recorder(1, HIGHEST_MICROS, SIGNIFICANT_DIGITS);
            totals[i] = new Histogram(1, HIGHEST_MICROS, SIGNIFICANT_DIGITS);
        }
    }

    private static int slot(int leaf, RootMetrics.Phase phase, Part part) {
        return (leaf * PHASES + phase.ordinal()) * PARTS + part.ordinal();
    }

    /**
     * An OK answer from {@code leaf} in {@code phase}: its round trip and what the leaf reported
     * ({@code cpuNanos} 0 when it did not say: then no CPU time is recorded).
     */
    public void record(int leaf, RootMetrics.Phase phase, long roundTripNanos, long queueNanos, long serviceNanos,
            long cpuNanos) {
        if (leaf < 0 || leaf >= leaves) {
            return;
        }
        int base = slot(leaf, phase, Part.SERVICE) - Part.SERVICE.ordinal();
        recorders[base + Part.SERVICE.ordinal()].recordValue(micros(serviceNanos));
        recorders[base + Part.QUEUE.ordinal()].recordValue(micros(queueNanos));
        recorders[base + Part.ROUND_TRIP.ordinal()].recordValue(micros(roundTripNanos));
        if (cpuNanos > 0) {
            recorders[base + Part.CPU.ordinal()].recordValue(micros(cpuNanos));
        }
    }

    private static long micros(long nanos) {
        return Math.max(1, Math.min(HIGHEST_MICROS, nanos / 1000));
    }

    /** Another leaf takes over {@code leaf}'s slot: the old leaf's histograms are emptied. */
    public synchronized void forget(int leaf) {
        if (leaf < 0 || leaf >= leaves) {
            return;
        }
        for (RootMetrics.Phase phase : RootMetrics.Phase.values()) {
            for (Part part : Part.values()) {
                int i = slot(leaf, phase, part);
                recorders[i].reset();
                totals[i].reset();
            }
        }
    }

    /** Every histogram, cumulative since the root started, leaf by leaf, then phase, then part (copies). */
    public synchronized List<Reading> snapshot() {
        List<Reading> readings = new ArrayList<>(recorders.length);
        for (int leaf = 0; leaf < leaves; leaf++) {
            for (RootMetrics.Phase phase : RootMetrics.Phase.values()) {
                for (Part part : Part.values()) {
                    int i = slot(leaf, phase, part);
                    intervals[i] = recorders[i].getIntervalHistogram(intervals[i]);
                    totals[i].add(intervals[i]);
                    readings.add(new Reading(leaf, phase, part, totals[i].copy()));
                }
            }
        }
        return readings;
    }

    public int leaves() {
        return leaves;
    }
}
