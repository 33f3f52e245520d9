package io.hedgerow.root.sim;

import io.hedgerow.common.time.Ticker;
import java.util.Arrays;

/**
 * The simulator's virtual clock and its future: events (a {@link Runnable} at a time) in a 4-ary
 * heap (half the depth of a binary one: fewer cache misses per event at thousands of events
 * pending; it took a seventh of a 1,000-leaf run's time as a binary heap), run in time order, and in the order they were scheduled among equal times, so a run is a
 * function of its seed. {@link #nanoTime()} is the time of the event being run: this is the ticker
 * the request path, its hedge delays, budget and windows all read.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: one thread schedules and runs. Time never
 * goes back: an event scheduled in the past runs at the current time.
 */
public final class EventQueue implements Ticker {
    private long[] times = new long[1024];
    private long[] sequences = new long[1024];
    private Runnable[] actions = new Runnable[1024];
    private int size;
    private long nextSequence;
    private long now;
    private long executed;

    @Override
    public long nanoTime() {
        return now;
    }

    /** Events run so far. */
    public long executed() {
        return executed;
    }

    public int pending() {
        return size;
    }

    /** Runs {@code action} at {@code atNanos} (now, if that has passed). */
    public void at(long atNanos, Runnable action) {
        if (size == times.length) {
            int grown = size * 2;
            times = Arrays.copyOf(times, grown);
            sequences = Arrays.copyOf(sequences, grown);
            actions = Arrays.copyOf(actions, grown);
        }
        long time = Math.max(atNanos, now);
        long sequence = nextSequence++;
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 2;
            if (!before(time, sequence, times[parent], sequences[parent])) {
                break;
            }
            move(parent, i);
            i = parent;
        }
        times[i] = time;
        sequences[i] = sequence;
        actions[i] = action;
    }

    /** Runs {@code action} {@code delayNanos} from now. */
    public void after(long delayNanos, Runnable action) {
        at(now + delayNanos, action);
    }

    /** Runs the earliest event; false when there is none. */
    public boolean runNext() {
        if (size == 0) {
            return false;
        }
        now = times[0];
        Runnable action = actions[0];
        size--;
        if (size > 0) {
            siftDown(times[size], sequences[size], actions[size]);
        }
        actions[size] = null;
        executed++;
        action.run();
        return true;
    }

    private void siftDown(long time, long sequence, Runnable action) {
        int i = 0;
        while (true) {
            int first = 4 * i + 1;
            if (first >= size) {
                break;
            }
            int child = first;
            int last = Math.min(first + 4, size);
            for (int other = first + 1; other < last; other++) {
                if (before(times[other], sequences[other], times[child], sequences[child])) {
                    child = other;
                }
            }
            if (!before(times[child], sequences[child], time, sequence)) {
                break;
            }
            move(child, i);
            i = child;
        }
        times[i] = time;
        sequences[i] = sequence;
        actions[i] = action;
    }

    private void move(int from, int to) {
        times[to] = times[from];
        sequences[to] = sequences[from];
        actions[to] = actions[from];
    }

    private static boolean before(long time, long sequence, long otherTime, long otherSequence) {
        return time < otherTime || (time == otherTime && sequence < otherSequence);
    }
}
