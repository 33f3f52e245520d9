package io.hedgerow.root.adapt;

import io.hedgerow.root.cluster.PartitionAssignment;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntPredicate;
import java.util.function.Supplier;

/**
 * Latency-induced probation ("The Tail at Scale"): a leaf much slower than its peers leaves primary
 * rotation, shadow requests keep measuring it, and it returns once its latency has been normal for
 * long enough. Removing a slow machine from a loaded system improves latency even though it removes
 * capacity: its share of every fan-out is what the tail waits for.
 *
 * <p><b>The rule.</b> Each leaf's latency is an EWMA (weight {@value #ALPHA}) of the round trips of
 * its OK search answers, shadow answers included; an answer cut short by the root's cancel is a lower
bound, counted only when above the EWMA ({@link #recordAtLeast}). Every {@value #EVALUATE_EVERY_MILLIS} ms at most
 * (on the next answer: no timer), each leaf's EWMA is compared with the median of its peers': the
 * other leaves in rotation with at least {@code probationMinSamples} answers:
 * <ul>
 *   <li><b>slow</b>: EWMA &gt; {@code probationFactor} x median and EWMA - median &gt;
 *       {@code probationMinExcess}. A leaf slow without a break for {@code probationAfter}, over at
 *       least {@code probationMinSamples} answers, goes on probation, unless some partition of its
 *       would then have no replica that is serving (connected) and in rotation: probation never
 *       removes a partition's last serving replica.</li>
 *   <li><b>normal</b>: EWMA &lt;= max(1, {@code probationFactor} / 2) x median, or within
 *       {@code probationMinExcess} of it. A leaf on probation normal without a break for
 *       {@code probationRecovery}, over at least {@code probationMinSamples} answers, returns.</li>
 * </ul>
 * The gap between the two thresholds keeps a leaf near the line from flapping in and out.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe, and lock-free on the answer path: answers from
 * every event loop update each leaf's EWMA and count with atomics; the one answer that finds the rule
 * due (a compare-and-set on the time of the last evaluation) runs it under this object's lock, on a
 * snapshot of the EWMAs. {@link #onProbation} (the request path's read) is a read of a volatile
 * snapshot. Time comes in with each call, on the root's injected ticker; no clock of its own.
 */
public final class Probation {
    static final double ALPHA = 0.1;
    static final long EVALUATE_EVERY_MILLIS = 100;
    private static final long EVALUATE_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(EVALUATE_EVERY_MILLIS);
    private static final long UNSET = Long.MIN_VALUE;
    private static final System.Logger LOG = System.getLogger(Probation.class.getName());

    /** A leaf's place: in rotation, or on probation since {@code sinceNanos} for {@code reason}. */
    public record State(boolean onProbation, String reason, long sinceNanos) {
        static final State IN_ROTATION = new State(false, null, 0);
    }

    private final AdaptationSettings settings;
    private final Supplier<PartitionAssignment> assignment;
    private final IntPredicate serving;
    private final Leaf[] leaves;
    private volatile State[] states;
    private volatile int count;
    /** Each leaf's latency EWMA (the bits of a double; NaN before its first answer), and its answers. */
    private final AtomicLongArray ewmaBits;
    private final AtomicLongArray samples;
    private final AtomicLong lastEvaluatedNanos = new AtomicLong(UNSET);
    private long entered;

    /** One leaf as the rule last saw it, and where it is in the rule. Guarded by the probation's lock. */
    private static final class Leaf {
        /** The EWMA and answers when the rule last ran. */
        double ewmaNanos;
        long samples;
        long slowSinceNanos = UNSET;
        long samplesWhenSlow;
        long normalSinceNanos = UNSET;
        long samplesWhenNormal;
    }

    /**
     * @param serving whether a leaf can serve at all (connected, not draining): probation keeps one
     *                such replica of every partition in rotation
     */
    public Probation(AdaptationSettings settings, PartitionAssignment assignment, IntPredicate serving) {
        this(settings, () -> assignment, serving);
    }

    /**
     * As above, for an assignment that changes (the placement service's serving assignment): each
     * check reads the current one. The number of leaves must not change.
     */
    public Probation(AdaptationSettings settings, Supplier<PartitionAssignment> assignment, IntPredicate serving) {
        this.settings = settings;
        this.assignment = assignment;
        this.serving = serving;
        this.leaves = new Leaf[assignment.get().leaves()];
        this.ewmaBits = new AtomicLongArray(leaves.length);
        this.samples = new AtomicLongArray(leaves.length);
        for (int leaf = 0; leaf < leaves.length; leaf++) {
            leaves[leaf] = new Leaf();
            ewmaBits.set(leaf, Double.doubleToRawLongBits(Double.NaN));
        }
        State[] initial = new State[leaves.length];
        Arrays.fill(initial, State.IN_ROTATION);
        this.states = initial;
    }

    /** Whether probation is on at all. */
    public boolean enabled() {
        return settings.probation();
    }

    /** The leaf answered a search OK after {@code latencyNanos}; the rule runs if it is due. */
    public void record(int leaf, long latencyNanos, long nowNanos) {
        if (!settings.probation()) {
            return;
        }
        long old;
        long updated;
        do {
            old = ewmaBits.get(leaf);
            double ewma = Double.longBitsToDouble(old);
            updated = Double.doubleToRawLongBits(Double.isNaN(ewma) ? latencyNanos : ewma + ALPHA * (latencyNanos - ewma));
        } while (!ewmaBits.compareAndSet(leaf, old, updated));
        samples.incrementAndGet(leaf);
        long last = lastEvaluatedNanos.get();
        if ((last == UNSET || nowNanos - last >= EVALUATE_EVERY_NANOS) && lastEvaluatedNanos.compareAndSet(last, nowNanos)) {
            evaluate(nowNanos);
        }
    }

    /**
     * The leaf took at least {@code atLeastNanos} over a search a cancel stopped (answered OK, cut
     * short): a lower bound of its latency, which can show the leaf slower than its EWMA but never
     * faster. Recorded as {@link #record} does when it is above the EWMA (or the leaf has none yet);
     * otherwise it says nothing and is not counted.
     */
    public void recordAtLeast(int leaf, long atLeastNanos, long nowNanos) {
        if (!settings.probation()) {
            return;
        }
        double ewma = Double.longBitsToDouble(ewmaBits.get(leaf));
        if (Double.isNaN(ewma) || atLeastNanos > ewma) {
            record(leaf, atLeastNanos, nowNanos);
        }
    }

    /** Whether {@code leaf} is out of primary rotation. Lock-free. */
    public boolean onProbation(int leaf) {
        return states[leaf].onProbation();
    }

    /** Leaves on probation now. */
    public int count() {
        return count;
    }

    public State state(int leaf) {
        return states[leaf];
    }

    /** The leaf's latency EWMA, in nanoseconds (0 before its first answer). */
    public double latencyNanos(int leaf) {
        double ewma = Double.longBitsToDouble(ewmaBits.get(leaf));
        return Double.isNaN(ewma) ? 0 : ewma;
    }

    /** Times a leaf has gone on probation since the root started. */
    public synchronized long entered() {
        return entered;
    }

    /** Runs the rule at {@code nowNanos} (the answers run it every 100 ms; tests call it directly). */
    public synchronized void evaluate(long nowNanos) {
        lastEvaluatedNanos.set(nowNanos);
        for (int leaf = 0; leaf < leaves.length; leaf++) {
            leaves[leaf].ewmaNanos = latencyNanos(leaf);
            leaves[leaf].samples = samples.get(leaf);
        }
        double[] peers = new double[leaves.length];
        int n = 0;
        for (int leaf = 0; leaf < leaves.length; leaf++) {
            if (inMedian(leaf)) {
                peers[n++] = leaves[leaf].ewmaNanos;
            }
        }
        Arrays.sort(peers, 0, n);
        for (int leaf = 0; leaf < leaves.length; leaf++) {
            Leaf state = leaves[leaf];
            // Its own EWMA is left out of its peers': two slow leaves of four must not make slow the median.
            double median = inMedian(leaf) ? medianWithout(peers, n, Arrays.binarySearch(peers, 0, n, state.ewmaNanos))
                    : medianWithout(peers, n, -1);
            if (state.samples == 0 || Double.isNaN(median)) {
                continue;
            }
            double excess = state.ewmaNanos - median;
            if (!onProbation(leaf)) {
                boolean slow = state.ewmaNanos > settings.probationFactor() * median
                        && excess > settings.probationMinExcess().toNanos();
                if (!slow) {
                    state.slowSinceNanos = UNSET;
                } else if (state.slowSinceNanos == UNSET) {
                    state.slowSinceNanos = nowNanos;
                    state.samplesWhenSlow = state.samples;
                } else if (nowNanos - state.slowSinceNanos >= settings.probationAfter().toNanos()
                        && state.samples - state.samplesWhenSlow >= settings.probationMinSamples()
                        && othersServeItsPartitions(leaf)) {
                    set(leaf, new State(true, String.format(Locale.ROOT,
                            "latency %.1f ms, %.1fx the median %.1f ms of the leaves in rotation, for %.1f s",
                            state.ewmaNanos / 1e6, state.ewmaNanos / median, median / 1e6,
                            (nowNanos - state.slowSinceNanos) / 1e9), nowNanos));
                    state.normalSinceNanos = UNSET;
                }
            } else {
                boolean normal = state.ewmaNanos <= Math.max(1, settings.probationFactor() / 2) * median
                        || excess <= settings.probationMinExcess().toNanos();
                if (!normal) {
                    state.normalSinceNanos = UNSET;
                } else if (state.normalSinceNanos == UNSET) {
                    state.normalSinceNanos = nowNanos;
                    state.samplesWhenNormal = state.samples;
                } else if (nowNanos - state.normalSinceNanos >= settings.probationRecovery().toNanos()
                        && state.samples - state.samplesWhenNormal >= settings.probationMinSamples()) {
                    set(leaf, new State(false, null, nowNanos));
                    state.slowSinceNanos = UNSET;
                }
            }
        }
    }

    /** Whether the leaf's latency counts among its peers': in rotation, with enough answers. */
    private boolean inMedian(int leaf) {
        return !onProbation(leaf) && leaves[leaf].samples >= settings.probationMinSamples();
    }

    /** The median of {@code sorted[0..n)} without the element at {@code skip} (-1: none); NaN when none is left. */
    static double medianWithout(double[] sorted, int n, int skip) {
        int size = skip < 0 ? n : n - 1;
        if (size == 0) {
            return Double.NaN;
        }
        double upper = at(sorted, skip, size / 2);
        return size % 2 == 1 ? upper : (at(sorted, skip, size / 2 - 1) + upper) / 2;
    }

    private static double at(double[] sorted, int skip, int index) {
        return skip >= 0 && index >= skip ? sorted[index + 1] : sorted[index];
    }

    /** True when every partition of {@code leaf} has another replica that is serving and in rotation. */
    private boolean othersServeItsPartitions(int leaf) {
        PartitionAssignment current = assignment.get();
        for (int partition : current.partitionsOf(leaf)) {
            boolean covered = false;
            for (int replica : current.replicasOf(partition)) {
                if (replica != leaf && serving.test(replica) && !onProbation(replica)) {
                    covered = true;
                    break;
                }
            }
            if (!covered) {
                return false;
            }
        }
        return true;
    }

    /**
     * Another leaf takes over {@code leaf}'s slot: the old leaf's latency, answers and place in the
     * rule are forgotten, and the slot is in rotation. An answer of the old leaf's still in flight may
     * land after this; one sample, which the EWMA soon outweighs.
     */
    public synchronized void forget(int leaf) {
        leaves[leaf] = new Leaf();
        ewmaBits.set(leaf, Double.doubleToRawLongBits(Double.NaN));
        samples.set(leaf, 0);
        if (states[leaf].onProbation()) {
            State[] next = states.clone();
            next[leaf] = State.IN_ROTATION;
            states = next;
            count = count - 1;
        }
    }

    private void set(int leaf, State state) {
        if (state.onProbation()) {
            LOG.log(System.Logger.Level.WARNING, "leaf {0} goes on probation: {1}", leaf, state.reason());
        } else {
            LOG.log(System.Logger.Level.INFO, "leaf {0} is back in rotation after {1} s on probation", leaf,
                    String.format(Locale.ROOT, "%.1f", (state.sinceNanos() - states[leaf].sinceNanos()) / 1e9));
        }
        State[] next = states.clone();
        next[leaf] = state;
        states = next;
        int on = 0;
        for (State s : next) {
            if (s.onProbation()) {
                on++;
            }
        }
        count = on;
        if (state.onProbation()) {
            entered++;
        }
    }
}
