package io.hedgerow.leaf.server;

import io.hedgerow.common.wire.proto.Priority;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * How a leaf queues work: a shallow, bounded FIFO of fresh work per scheduling class with a lower
 * sub-queue of continuations, how often lower classes run while a higher one has work waiting, and
 * which work runs in the expensive lane (see {@link ClassQueues}).
 *
 * @param depths            the most fresh tasks that may wait in each class's queue, highest class first
 *                          (interactive, backup, batch, shadow); one more is refused BUSY at once.
 *                          Continuations of sliced searches do not count
 * @param lowerClassEvery   the starvation guard: while work of a lower class waits behind a higher
 *                          one, one dequeue in this many goes to the oldest lower-class task, so lower
 *                          classes get at least that share of the workers' turns; 0 turns the guard
 *                          off (strict priority)
 * @param expensiveCost     a search whose estimated cost on its partition ({@code QueryCost.estimate},
 *                          in postings) is at least this runs in the expensive lane, at most one less
 *                          than the workers at once, so a worker is always left for cheap work (and
 *                          the leaf then runs at least two workers); 0 turns lanes off
 * @param continuationAging how long a continuation may wait behind fresh work of its class before it
 *                          goes ahead of it
 *                          (with lanes on: the most cheap work holds the lane back, see {@code LaneGate})
 * @param laneSlice         the slices of a search on a lane worker (when searches are sliced at all):
 *                          how soon the lane looks whether cheap work came, and steps aside for it
 * @param inlineCheap       experimental, off by default: with lanes on, a search the root already knows
 *                          to be cheap (its cost hint) runs on the event loop that read it, without a
 *                          thread hop, when nothing is queued and a search worker is idle (see {@code
 *                          SearchScheduler#tryStartInline}); not yet measured
 */
public record SchedulingConfig(List<Integer> depths, int lowerClassEvery, long expensiveCost,
        Duration continuationAging, Duration laneSlice, boolean inlineCheap) {
    /** Scheduling classes, highest first, as {@link Priority} numbers them. */
    public static final int CLASSES = Priority.values().length - 1; // less UNRECOGNIZED

    /**
     * A few tens of milliseconds of cheap sub-requests per worker for interactive work, less for
     * the rest: a queue longer than that only turns a burst into latency, where BUSY lets the
     * root try another replica.
     */
    public static final List<Integer> DEFAULT_DEPTHS = List.of(256, 64, 64, 16);
    /** Lower classes get at least one turn in ten. */
    public static final int DEFAULT_LOWER_CLASS_EVERY = 10;
    /**
     * What the command line starts leaves with: sixty thousand postings. On Europarl x20 (22,000
     * documents a partition) the term and two-term queries of the generated query set estimate at
     * most 48,000 and take 0.1-0.7 ms of CPU, sloppy phrases of three frequent terms 70,000 and more
     * (1-3 ms), ORs of 128 frequent terms with exact counts 130,000 and more (8-20 ms). A search
     * estimated below runs in one pass on a search worker, so a query the estimate misses holds its
     * worker to its end (it no longer moves to the lane after a slice: that cost every search its
     * clock readings and windows).
     */
    public static final long DEFAULT_EXPENSIVE_COST = 60_000;
    /** Ten slices of the default length: a long search still moves at least every 10 ms. */
    public static final Duration DEFAULT_CONTINUATION_AGING = Duration.ofMillis(10);
    /**
     * The default slice. Shorter lane slices cost CPU: a disjunction's bulk scorer pays for visiting
     * every clause once per window. In the cluster benchmark, 0.25 ms slices took a search of an OR
     * of 512 clauses with exact counts to 25 ms of CPU a partition against 6 ms run whole (7 ms once
     * a step no longer ended on a sliver of a window, 5.5 ms at 1 ms slices), and the closed-loop
     * throughput of the 98/2 mix to 270 against 399 req/s at 1 ms (single runs), for no better
     * cheap-query latency (docs/benchmarks/time-slicing.md).
     */
    public static final Duration DEFAULT_LANE_SLICE = Duration.ofMillis(1);

    public SchedulingConfig {
        depths = List.copyOf(depths);
        if (depths.size() != CLASSES) {
            throw new IllegalArgumentException("depths: " + depths + " (expected: " + CLASSES
                    + " depths, one per class: interactive, backup, batch, shadow)");
        }
        for (int i = 0; i < CLASSES; i++) {
            if (depths.get(i) < 1) {
                throw new IllegalArgumentException("queue depth of " + className(i) + ": " + depths.get(i)
                        + " (expected: >= 1)");
            }
        }
        if (lowerClassEvery < 0 || lowerClassEvery == 1) {
            throw new IllegalArgumentException("lowerClassEvery: " + lowerClassEvery
                    + " (expected: 0 for off, or >= 2)");
        }
        if (expensiveCost < 0) {
            throw new IllegalArgumentException("expensiveCost: " + expensiveCost + " (expected: >= 0; 0 for no lanes)");
        }
        Objects.requireNonNull(continuationAging, "continuationAging");
        if (continuationAging.isNegative()) {
            throw new IllegalArgumentException("continuationAging: " + continuationAging + " (expected: >= 0)");
        }
        Objects.requireNonNull(laneSlice, "laneSlice");
        if (laneSlice.isNegative() || laneSlice.isZero()) {
            throw new IllegalArgumentException("laneSlice: " + laneSlice + " (expected: > 0)");
        }
    }

    /** Searches never run inline (see {@link #inlineCheap()}). */
    public SchedulingConfig(List<Integer> depths, int lowerClassEvery, long expensiveCost,
            Duration continuationAging, Duration laneSlice) {
        this(depths, lowerClassEvery, expensiveCost, continuationAging, laneSlice, false);
    }

    /** Without lanes, continuations aging after the default. */
    public SchedulingConfig(List<Integer> depths, int lowerClassEvery) {
        this(depths, lowerClassEvery, 0, DEFAULT_CONTINUATION_AGING, DEFAULT_LANE_SLICE);
    }

    /**
     * The default depths, starvation guard and aging, and no lanes: as a leaf runs unless told
     * otherwise (the command line turns lanes on, with {@link #DEFAULT_EXPENSIVE_COST}).
     */
    public static SchedulingConfig defaults() {
        return new SchedulingConfig(DEFAULT_DEPTHS, DEFAULT_LOWER_CLASS_EVERY);
    }

    /** The same, with {@code priority}'s queue {@code depth} deep. */
    public SchedulingConfig withDepth(Priority priority, int depth) {
        Integer[] changed = depths.toArray(Integer[]::new);
        changed[priority.getNumber()] = depth;
        return new SchedulingConfig(List.of(changed), lowerClassEvery, expensiveCost, continuationAging, laneSlice,
                inlineCheap);
    }

    public SchedulingConfig withLowerClassEvery(int every) {
        return new SchedulingConfig(depths, every, expensiveCost, continuationAging, laneSlice, inlineCheap);
    }

    /** Searches estimated to cost at least this run in the expensive lane (0: no lanes). */
    public SchedulingConfig withExpensiveCost(long cost) {
        return new SchedulingConfig(depths, lowerClassEvery, cost, continuationAging, laneSlice, inlineCheap);
    }

    public SchedulingConfig withContinuationAging(Duration aging) {
        return new SchedulingConfig(depths, lowerClassEvery, expensiveCost, aging, laneSlice, inlineCheap);
    }

    public SchedulingConfig withLaneSlice(Duration slice) {
        return new SchedulingConfig(depths, lowerClassEvery, expensiveCost, continuationAging, slice, inlineCheap);
    }

    /** Whether a search known to be cheap may run inline, on the event loop (experimental; see the record). */
    public SchedulingConfig withInlineCheap(boolean inline) {
        return new SchedulingConfig(depths, lowerClassEvery, expensiveCost, continuationAging, laneSlice, inline);
    }

    /**
     * Whether a search whose root-sent cost hint is {@code costHint} is known to be cheap: lanes on,
     * and a hint (the root saw the query before) below the threshold.
     */
    boolean isKnownCheap(long costHint) {
        return lanes() && costHint > 0 && costHint < expensiveCost;
    }

    /** Whether searches are split into cheap work and an expensive lane. */
    public boolean lanes() {
        return expensiveCost > 0;
    }

    /** Whether a search of this estimated cost runs in the expensive lane. */
    boolean isExpensive(long estimatedCost) {
        return lanes() && estimatedCost >= expensiveCost;
    }

    /** The most expensive searches that may run at once: one less than the workers, at least one. */
    static int laneWorkers(int workers) {
        return Math.max(1, workers - 1);
    }

    /** The depth of class {@code classIndex} (0 the highest). */
    int depth(int classIndex) {
        return depths.get(classIndex);
    }

    /** The class a wire priority number schedules in: unknown numbers count as the lowest class. */
    static int classOf(int priority) {
        return priority >= 0 && priority < CLASSES ? priority : CLASSES - 1;
    }

    /** {@code interactive}, {@code backup}, {@code batch} or {@code shadow}. */
    static String className(int classIndex) {
        return Priority.forNumber(classIndex).name().toLowerCase(Locale.ROOT);
    }
}
