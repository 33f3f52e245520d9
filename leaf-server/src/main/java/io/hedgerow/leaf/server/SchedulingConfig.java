package io.hedgerow.leaf.server;

import io.hedgerow.common.wire.proto.Priority;
import java.util.List;
import java.util.Locale;

/**
 * How a leaf queues work: a shallow, bounded FIFO per scheduling class, and how often lower
 * classes run while a higher one has work waiting.
 *
 * @param depths          the most tasks that may wait in each class's queue, highest class first
 *                        (interactive, backup, batch, shadow); one more is refused BUSY at once
 * @param lowerClassEvery the starvation guard: while work of a lower class waits behind a higher
 *                        one, one dequeue in this many goes to the oldest lower-class task, so lower
 *                        classes get at least that share of the workers' turns; 0 turns the guard
 *                        off (strict priority)
 */
public record SchedulingConfig(List<Integer> depths, int lowerClassEvery) {
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
    }

    public static SchedulingConfig defaults() {
        return new SchedulingConfig(DEFAULT_DEPTHS, DEFAULT_LOWER_CLASS_EVERY);
    }

    /** The same, with {@code priority}'s queue {@code depth} deep. */
    public SchedulingConfig withDepth(Priority priority, int depth) {
        Integer[] changed = depths.toArray(Integer[]::new);
        changed[priority.getNumber()] = depth;
        return new SchedulingConfig(List.of(changed), lowerClassEvery);
    }

    public SchedulingConfig withLowerClassEvery(int every) {
        return new SchedulingConfig(depths, every);
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
