package io.hedgerow.root.admission;

import io.hedgerow.common.time.Durations;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * How the root limits the searches it runs at once ({@link AdmissionControl}).
 *
 * @param algorithm    how the limit is found: learnt from latency ({@code GRADIENT2}, {@code VEGAS},
 *                     Netflix's concurrency-limits algorithms), {@code FIXED} at {@code initialLimit},
 *                     or {@code OFF} (no limit: every search runs)
 * @param initialLimit the limit before any latency is known; the limit itself when fixed
 * @param minLimit     the adaptive limit never goes below this (Vegas alone would go down to 1)
 * @param maxLimit     nor above this
 * @param batchShare   batch searches are admitted only while fewer than this share of the limit
 *                     is in flight, so they are shed before interactive ones (0..1]
 * @param retryAfter   what a refusal's {@code Retry-After} header says
 * @param maxQueued    the most searches that may wait at the root over the limit ({@link AdmissionQueue}):
 *                     the queue holds one per open HTTP connection, at least {@link #QUEUE_FLOOR}, and never
 *                     more than this; 0 refuses every search over the limit at once (no queue)
 * @param queueTarget  the standing queue delay the root tolerates ({@link QueueDelayRule}, CoDel's target)
 * @param queueInterval how long each step of a growing queue delay is measured over before arrivals are
 *                     refused (CoDel's interval: about one round trip of a slow search)
 * @param queueTolerance a growing queue delay is refused only once it has reached this much: a transient
 *                     under it (a leaf killed and restarting) is queued through, not refused
 */
public record AdmissionSettings(Algorithm algorithm, int initialLimit, int minLimit, int maxLimit, double batchShare,
        Duration retryAfter, int maxQueued, Duration queueTarget, Duration queueInterval, Duration queueTolerance) {
    /**
     * The queue holds at least this many searches, however few connections are open: a client with
     * few connections that pipelines still has its searches queued, not refused.
     */
    public static final int QUEUE_FLOOR = 256;

    /** How the limit is set. */
    public enum Algorithm {
        /** Netflix's Gradient2: the gradient of a long-term average latency over the current one. */
        GRADIENT2,
        /** Netflix's Vegas: the queue estimated from the least latency seen; backs off on drops. */
        VEGAS,
        /** A fixed limit: {@code initialLimit}. */
        FIXED,
        /** No admission control. */
        OFF;

        /** {@code gradient2}, {@code vegas}, {@code fixed}, {@code off}. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** Reads a label, in any case; the exception names the text and the accepted values. */
        public static Algorithm parse(String text) {
            for (Algorithm algorithm : values()) {
                if (algorithm.label().equalsIgnoreCase(text.trim())) {
                    return algorithm;
                }
            }
            throw new IllegalArgumentException("admission: '" + text + "' (expected: gradient2, vegas, fixed or off)");
        }
    }

    public AdmissionSettings {
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(retryAfter, "retryAfter");
        if (minLimit < 1) {
            throw new IllegalArgumentException("minLimit: " + minLimit + " (expected: >= 1)");
        }
        if (maxLimit < minLimit) {
            throw new IllegalArgumentException("maxLimit: " + maxLimit + " (expected: >= minLimit " + minLimit + ")");
        }
        if (initialLimit < minLimit || initialLimit > maxLimit) {
            throw new IllegalArgumentException("initialLimit: " + initialLimit + " (expected: " + minLimit + ".."
                    + maxLimit + ", between minLimit and maxLimit)");
        }
        if (!(batchShare > 0 && batchShare <= 1)) {
            throw new IllegalArgumentException("batchShare: " + batchShare + " (expected: > 0 and <= 1)");
        }
        if (retryAfter.isNegative() || retryAfter.isZero() || retryAfter.toSeconds() > 3600) {
            throw new IllegalArgumentException("retryAfter: " + Durations.format(retryAfter)
                    + " (expected: 1s..1h; the header counts whole seconds)");
        }
        if (maxQueued < 0) {
            throw new IllegalArgumentException("maxQueued: " + maxQueued + " (expected: >= 0; 0 for no queue)");
        }
        Objects.requireNonNull(queueTarget, "queueTarget");
        Objects.requireNonNull(queueInterval, "queueInterval");
        if (queueTarget.isNegative() || queueTarget.isZero()) {
            throw new IllegalArgumentException("queueTarget: " + Durations.format(queueTarget) + " (expected: > 0)");
        }
        Objects.requireNonNull(queueTolerance, "queueTolerance");
        if (queueTolerance.isNegative()) {
            throw new IllegalArgumentException("queueTolerance: " + Durations.format(queueTolerance) + " (expected: >= 0)");
        }
        if (queueInterval.compareTo(queueTarget) <= 0) {
            throw new IllegalArgumentException("queueInterval: " + Durations.format(queueInterval)
                    + " (expected: > queueTarget " + Durations.format(queueTarget) + ")");
        }
    }

    /** Searches that may wait now, with {@code openConnections} HTTP connections open. */
    public int queueCapacity(int openConnections) {
        return Math.min(maxQueued, Math.max(QUEUE_FLOOR, openConnections));
    }

    /**
     * Vegas from 64 searches in flight, between 32 and 256; batch up to half the limit; retry after
     * 1 s; at most 10,000 searches queued (one per connection, the default connection cap), a
     * queue delay target of 5 ms over intervals of 100 ms (CoDel's figures), and a growing delay
     * refused only past 250 ms: a leaf killed under half capacity grows the delay for a second or two
     * (the burst of refusals of issue 30's kill runs came with a p99 of about 220 ms), and a real
     * overload passes 250 ms within a fraction of a second.
     *
     * <p>Why these limits. Vegas estimates the queue from the least latency it has seen; query
     * costs vary tenfold, so any expensive query looks like queueing and Vegas sits at its floor
     * whenever costs vary (issue 30: with a floor of 16 the root served 460 answers/s at 32
     * connections and refused 1,710/s, where admission off served 1,171/s). Before the root queued,
     * the floor was also the point past which searches were refused, so a low floor refused normal
     * load. Now a search over the limit waits at the root instead ({@link AdmissionQueue}), and the
     * limit only decides how many searches the leaves work on at once: too low and leaves idle while
     * searches wait at the root, too high and the waiting moves into the leaves' queues, where it can
     * be neither ordered by class nor shed. On 2 cores with 4 leaves, 32 in flight already reached
     * the throughput of no limit at all (admission off: 1,171/s at 32 connections, 1,192/s at 64),
     * so the floor is 32 and Vegas starts at 64 and backs off from there towards the floor on busy
     * leaves. Normal load is queued, never refused: refusals come only from the queue's rules (full,
     * a deadline it cannot meet, a delay that keeps growing). These are issue 30's figures; the
     * defaults are to be measured again (docs/benchmarks).
     *
     * <p>Vegas rather than Gradient2: docs/benchmarks/overload.md measured at twice the capacity
     * Gradient2's limit drifting up with its long-term latency average (admitted p99 99 ms against
     * 12 ms at half load) while Vegas held it near the least latency seen.
     */
    public static AdmissionSettings defaults() {
        return new AdmissionSettings(Algorithm.VEGAS, 64, 32, 256, 0.5, Duration.ofSeconds(1), 10_000,
                Duration.ofMillis(5), Duration.ofMillis(100), Duration.ofMillis(250));
    }

    /** No admission control: every search runs, as before it existed. */
    public static AdmissionSettings off() {
        return defaults().withAlgorithm(Algorithm.OFF);
    }

    public AdmissionSettings withAlgorithm(Algorithm value) {
        return new AdmissionSettings(value, initialLimit, minLimit, maxLimit, batchShare, retryAfter, maxQueued,
                queueTarget, queueInterval, queueTolerance);
    }

    /** Sets the three limits together, so a command line may move them past each other. */
    public AdmissionSettings withLimits(int initial, int min, int max) {
        return new AdmissionSettings(algorithm, initial, min, max, batchShare, retryAfter, maxQueued,
                queueTarget, queueInterval, queueTolerance);
    }

    public AdmissionSettings withBatchShare(double value) {
        return new AdmissionSettings(algorithm, initialLimit, minLimit, maxLimit, value, retryAfter, maxQueued,
                queueTarget, queueInterval, queueTolerance);
    }

    public AdmissionSettings withRetryAfter(Duration value) {
        return new AdmissionSettings(algorithm, initialLimit, minLimit, maxLimit, batchShare, value, maxQueued,
                queueTarget, queueInterval, queueTolerance);
    }

    /** The most searches queued over the limit; 0 refuses at once, as before the root queued. */
    public AdmissionSettings withMaxQueued(int value) {
        return new AdmissionSettings(algorithm, initialLimit, minLimit, maxLimit, batchShare, retryAfter, value,
                queueTarget, queueInterval, queueTolerance);
    }

    /** CoDel's target and interval ({@link QueueDelayRule}). */
    public AdmissionSettings withQueueDelay(Duration target, Duration interval) {
        return new AdmissionSettings(algorithm, initialLimit, minLimit, maxLimit, batchShare, retryAfter, maxQueued,
                target, interval, queueTolerance);
    }

    /** The growing queue delay tolerated before arrivals are refused ({@link QueueDelayRule}); 0: none. */
    public AdmissionSettings withQueueTolerance(Duration value) {
        return new AdmissionSettings(algorithm, initialLimit, minLimit, maxLimit, batchShare, retryAfter, maxQueued,
                queueTarget, queueInterval, value);
    }

    /** For logs and help: {@code vegas from 64 in [32, 256], batch up to 50%, up to 10000 queued}. */
    public String describe() {
        String queue = maxQueued == 0 ? ", no queue" : ", up to " + maxQueued + " queued";
        return switch (algorithm) {
            case OFF -> "off";
            case FIXED -> "fixed at " + initialLimit + ", batch up to " + Math.round(batchShare * 100) + "%" + queue;
            default -> algorithm.label() + " from " + initialLimit + " in [" + minLimit + ", " + maxLimit + "], batch up to "
                    + Math.round(batchShare * 100) + "%" + queue;
        };
    }
}
