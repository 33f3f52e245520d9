package io.hedgerow.root.adapt;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Slow start for a leaf that comes back (restarted, or reconnected after it was lost): its share of
 * the primary sub-requests it would win grows from {@value #MIN_SHARE} to all of them as its latency
 * comes down to its peers', instead of its getting a full share at once while its fresh JVM runs
 * interpreted code. Envoy's slow-start mode ramps a new host's weight with time, from a minimum
 * weight of 10%; here the ramp is capped by latency as well, because a cold JVM's slowness is what
 * the ramp is for, and it lasts as long as the JIT needs, not a fixed time.
 *
 * <p><b>The rule.</b> For a leaf that came back {@code t} ago, with a latency EWMA {@code own} (of
 * its OK search answers since it came back) and {@code peers} the EWMA of every other leaf's
 * answers meanwhile:
 * <pre>
 *   share = min(max(MIN_SHARE, t / window), latency share)
 *   latency share = clamp(peers / own, MIN_SHARE, 1), or 1 before {@value #MIN_SAMPLES} answers of each
 * </pre>
 * The slow start ends once {@code t >= window} and its latency is within {@value #TOLERANCE} times
 * its peers' (over {@value #MIN_SAMPLES} answers), or at {@value #LONGEST_WINDOWS} windows at most
 * (a leaf slow for good is probation's: {@link Probation}). With the minimum share the leaf still
 * gets enough work to compile its code and to be measured; the primaries it does not get go to the
 * other replica, and one it gets and answers slowly is hedged there.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe and lock-free: every event loop records answers
 * and reads shares. {@link #share} is a volatile read while no leaf is in slow start; answers feed
 * the EWMAs only while one is. Time comes in with each call, on the root's ticker; no clock of its
 * own. A leaf's end of slow start may be seen a little late by a concurrent reader, never early.
 */
public final class SlowStart {
    /** The least share of its primaries a leaf in slow start gets (Envoy's default minimum weight). */
    static final double MIN_SHARE = 0.1;
    /** Answers of the leaf (and of its peers) before its latency counts. */
    static final int MIN_SAMPLES = 20;
    /** How close to its peers' latency the leaf must be to end its slow start. */
    static final double TOLERANCE = 1.5;
    /** The longest slow start, in windows. */
    static final int LONGEST_WINDOWS = 4;
    /** Weight of a new answer in the leaf's EWMA (its latency falls fast while it compiles). */
    static final double ALPHA = 0.2;
    /** Weight of a new answer in the peers' EWMA (many answers from several leaves). */
    static final double PEERS_ALPHA = 0.02;

    private final long windowNanos;
    private final AtomicReferenceArray<Warming> warming;
    private final AtomicInteger count = new AtomicInteger();
    /** The other leaves' latency, measured afresh from the first slow start of a quiet time. */
    private final AtomicReference<Ewma> peers = new AtomicReference<>(new Ewma(PEERS_ALPHA));

    /** @param window how long the share takes to grow to all at best; zero: no slow start */
    public SlowStart(int leaves, Duration window) {
        if (window.isNegative()) {
            throw new IllegalArgumentException("window: " + window + " (expected: >= 0; 0 for off)");
        }
        this.windowNanos = window.toNanos();
        this.warming = new AtomicReferenceArray<>(leaves);
    }

    public boolean enabled() {
        return windowNanos > 0;
    }

    /** The leaf came back at {@code nowNanos}: its slow start begins (again). */
    public void begin(int leaf, long nowNanos) {
        if (windowNanos == 0) {
            return;
        }
        if (warming.getAndSet(leaf, new Warming(nowNanos)) == null && count.getAndIncrement() == 0) {
            peers.set(new Ewma(PEERS_ALPHA));
        }
    }

    /** Another leaf takes over {@code leaf}'s slot: the old leaf's slow start, if any, ends. */
    public void forget(int leaf) {
        if (warming.getAndSet(leaf, null) != null) {
            count.decrementAndGet();
        }
    }

    /** The leaf answered a search OK after {@code latencyNanos}. */
    public void record(int leaf, long latencyNanos) {
        if (count.get() == 0) {
            return;
        }
        Warming own = warming.get(leaf);
        if (own != null) {
            own.latency.add(latencyNanos);
        } else {
            peers.get().add(latencyNanos);
        }
    }

    /** The fraction (0..1] of the primaries it would win that the leaf gets now: 1 unless in slow start. */
    public double share(int leaf, long nowNanos) {
        Warming own = warming.get(leaf);
        if (own == null) {
            return 1;
        }
        long elapsed = nowNanos - own.sinceNanos;
        double latencyShare = latencyShare(own);
        if (elapsed >= windowNanos && (latencyShare * TOLERANCE >= 1 || elapsed >= LONGEST_WINDOWS * windowNanos)) {
            if (warming.compareAndSet(leaf, own, null)) {
                count.decrementAndGet();
            }
            return 1;
        }
        double timeShare = Math.max(MIN_SHARE, (double) elapsed / windowNanos);
        return Math.min(Math.min(1, timeShare), latencyShare);
    }

    /** Whether the leaf is in slow start now (it ends when {@link #share} finds it over). */
    public boolean inSlowStart(int leaf) {
        return warming.get(leaf) != null;
    }

    /** Leaves in slow start. */
    public int count() {
        return count.get();
    }

    private double latencyShare(Warming own) {
        Ewma others = peers.get();
        if (own.latency.samples() < MIN_SAMPLES || others.samples() < MIN_SAMPLES) {
            return 1;
        }
        double ratio = others.value() / own.latency.value();
        return Math.max(MIN_SHARE, Math.min(1, ratio));
    }

    /** A leaf in slow start: since when, and its latency since. */
    private static final class Warming {
        final long sinceNanos;
        final Ewma latency = new Ewma(ALPHA);

        Warming(long sinceNanos) {
            this.sinceNanos = sinceNanos;
        }
    }

    /** An EWMA updated by compare-and-set from any thread; its first sample is its value. */
    private static final class Ewma {
        private final double alpha;
        private final AtomicLong bits = new AtomicLong(Double.doubleToRawLongBits(Double.NaN));
        private final AtomicLong samples = new AtomicLong();

        Ewma(double alpha) {
            this.alpha = alpha;
        }

        void add(long sample) {
            long old;
            long updated;
            do {
                old = bits.get();
                double value = Double.longBitsToDouble(old);
                updated = Double.doubleToRawLongBits(Double.isNaN(value) ? sample : value + alpha * (sample - value));
            } while (!bits.compareAndSet(old, updated));
            samples.incrementAndGet();
        }

        double value() {
            return Double.longBitsToDouble(bits.get());
        }

        long samples() {
            return samples.get();
        }
    }
}
