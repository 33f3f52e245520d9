package io.hedgerow.loadgen.durability;

import io.hedgerow.common.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Which root a client of the set workload asks first, and where it fails over to: client {@code c}
 * prefers root {@code c mod n} and then tries the others in order ({@code c+1 mod n}, ...), each at
 * most once per operation. A root that just failed to answer (connection refused, no answer, 503) is
 * tried last by every client for {@code avoid} after the failure, so a root that is cut off or paused
 * costs one timeout, not one per operation; an answer from it ends that.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe (one atomic array shared by every client); no
 * lock. Time comes from the injected {@link Ticker}.
 */
public final class RootChoice {
    private static final long NONE = Long.MIN_VALUE;

    private final int roots;
    private final Ticker ticker;
    private final long avoidNanos;
    /** When each root last failed to answer, on the ticker; {@link #NONE}: not since its last answer. */
    private final AtomicLongArray failedAt;

    public RootChoice(int roots, Ticker ticker, Duration avoid) {
        if (roots < 1) {
            throw new IllegalArgumentException("roots: " + roots + " (expected: >= 1)");
        }
        if (avoid.isNegative()) {
            throw new IllegalArgumentException("avoid: " + avoid + " (expected: >= 0)");
        }
        this.roots = roots;
        this.ticker = ticker;
        this.avoidNanos = avoid.toNanos();
        this.failedAt = new AtomicLongArray(roots);
        for (int r = 0; r < roots; r++) {
            failedAt.set(r, NONE);
        }
    }

    public int roots() {
        return roots;
    }

    /** The roots client {@code client} tries, in order: its own first, then the next ones; recently failed ones last. */
    public List<Integer> order(int client) {
        if (client < 0) {
            throw new IllegalArgumentException("client: " + client + " (expected: >= 0)");
        }
        long now = ticker.nanoTime();
        List<Integer> healthy = new ArrayList<>(roots);
        List<Integer> avoided = new ArrayList<>(roots);
        for (int i = 0; i < roots; i++) {
            int root = (client + i) % roots;
            long failed = failedAt.get(root);
            (failed != NONE && now - failed < avoidNanos ? avoided : healthy).add(root);
        }
        healthy.addAll(avoided);
        return healthy;
    }

    /** Root {@code root} failed to answer now. */
    public void failed(int root) {
        failedAt.set(root, ticker.nanoTime());
    }

    /** Root {@code root} answered (any answer). */
    public void answered(int root) {
        failedAt.set(root, NONE);
    }
}
