package io.hedgerow.root.hedge;

import io.hedgerow.common.time.Ticker;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Caps the extra load a root adds beyond one sub-request per partition (and one fetch per leaf):
 * every <em>extra</em> sub-request, a backup (of any phase, any round), a tied twin or a retry
 * after a failure, is charged to one budget. A backup or a twin may be sent only while the extras
 * sent in the last {@code budgetWindow} stay within {@code budgetRatio} of the primary sub-requests
 * sent in it, plus a reserve of {@code budgetMinPerSecond} per second of the window ({@link
 * #tryBackup()}). A retry may go further, by a floor of {@code retryFloorPerSecond} per second of
 * the window ({@link #tryRetry()}): backups alone can never fill the budget up to where retries
 * stop, so a leaf crash, which fails every sub-request it held at once, gets its retries even when
 * hedging has spent its share. This is Finagle's {@code RetryBudget} (deposits that expire after a
 * ttl, withdrawals against them, a minimum reserve) kept as counts in a sliding window: when a leaf
 * slows down, the backups it provokes are bounded by the primaries that funded them, so hedging
 * never turns an overload into a larger one, and a storm of failures is bounded too. A refusal is
 * counted ({@link #refusals()}); the caller keeps waiting for the copy it has, or gives the
 * partition up.
 *
 * <p>The window is a ring of ten buckets, each a tenth of {@code budgetWindow}, rotated as the
 * ticker passes their ends; it holds the current, partly filled bucket and the nine before it, so a
 * primary funds backups for between 0.9 and 1.0 times the window, and a backup counts against the
 * budget for as long.
 *
 * <p><b>Assumptions and guarantees.</b> All methods may be called from any number of threads.
 * {@link #primarySent()} is a ticker read (none when the caller passes the time), a volatile read
 * and a {@link LongAdder} increment,
 * except for the one caller per bucket that rotates the ring under a lock, which no caller waits
 * for: one that finds it held (another thread rotating) counts and goes on. {@link #tryBackup()}
 * sums the ring's counters and then counts its backup; the check and the count are not one atomic
 * step, so callers racing for the last backup allowed may overshoot the limit by at most one
 * backup per concurrent caller (fewer than the number of event loops). A count made concurrently
 * with a rotation lands in the bucket just before the new one, which is still in the window (after
 * a quiet spell of a whole window, when the rotation clears every bucket, it may be cleared). Time
 * comes only from the injected {@link Ticker}.
 */
public final class HedgeBudget {
    /** Buckets in the sliding window. */
    public static final int BUCKETS = 10;

    private final Ticker ticker;
    private final double ratio;
    private final double reserve;
    private final double retryFloor;
    private final long bucketNanos;
    private final LongAdder[] primaries = new LongAdder[BUCKETS];
    private final LongAdder[] backups = new LongAdder[BUCKETS];
    private final LongAdder refusals = new LongAdder();
    private volatile int current;
    private volatile long nextRotationNanos;
    /** Held by the one caller rotating the ring; tried, never waited for. */
    private final ReentrantLock rotating = new ReentrantLock();
    private long currentBucketStartNanos; // guarded by rotating

    public HedgeBudget(HedgeSettings settings, Ticker ticker) {
        Objects.requireNonNull(settings, "settings");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.ratio = settings.budgetRatio();
        long windowNanos = settings.budgetWindow().toNanos();
        this.reserve = settings.budgetMinPerSecond() * windowNanos / 1e9;
        this.retryFloor = settings.retryFloorPerSecond() * windowNanos / 1e9;
        this.bucketNanos = windowNanos / BUCKETS;
        for (int i = 0; i < BUCKETS; i++) {
            primaries[i] = new LongAdder();
            backups[i] = new LongAdder();
        }
        this.currentBucketStartNanos = ticker.nanoTime();
        this.nextRotationNanos = currentBucketStartNanos + bucketNanos;
    }

    /** Counts one primary sub-request sent: it funds {@code budgetRatio} of a backup for the window. */
    public void primarySent() {
        primarySent(ticker.nanoTime());
    }

    /**
     * As {@link #primarySent()}, at {@code nowNanos} on this budget's ticker: a fan-out counts its
     * primaries at its event's time, without a clock read each. A time behind the current bucket
     * (another thread rotated meanwhile) counts in the current bucket.
     */
    public void primarySent(long nowNanos) {
        if (nowNanos - nextRotationNanos >= 0) {
            rotate(nowNanos);
        }
        primaries[current].increment();
    }

    /**
     * Takes one backup (or tied twin) from the budget if the window allows it.
     *
     * @return true if the backup may be sent (and is counted); false if the budget is spent (the
     *         refusal is counted)
     */
    public boolean tryBackup() {
        return tryTake(0);
    }

    /**
     * Takes one retry (a copy sent after another failed) from the budget: allowed up to the backups'
     * limit plus the retry floor.
     *
     * @return true if the retry may be sent (and is counted); false if even the floor is spent
     */
    public boolean tryRetry() {
        return tryTake(retryFloor);
    }

    /**
     * Gives back one backup taken but never sent: a tied twin is charged when its first copy goes
     * out (the first copy names it), and returned when the partition answered before the twin left.
     */
    public void giveBack() {
        rotateIfDue();
        backups[current].decrement();
    }

    /** Takes one if the extras stay within the limit plus {@code beyondLimit}; rotates first, so the limit is current. */
    private boolean tryTake(double beyondLimit) {
        rotateIfDue();
        if (sum(backups) + 1 <= limit() + beyondLimit) {
            backups[current].increment();
            return true;
        }
        refusals.increment();
        return false;
    }

    /** Backups refused since this budget was made. */
    public long refusals() {
        return refusals.sum();
    }

    /** Primary sub-requests counted in the window. */
    public long primariesInWindow() {
        rotateIfDue();
        return sum(primaries);
    }

    /** Extra sub-requests (backups, twins, retries) taken in the window. */
    public long backupsInWindow() {
        rotateIfDue();
        return sum(backups);
    }

    /** How many more backups the window allows now (>= 0); retries have {@code retryFloor} more. */
    public long available() {
        rotateIfDue();
        return Math.max(0, (long) Math.floor(limit()) - sum(backups));
    }

    private double limit() {
        return ratio * sum(primaries) + reserve;
    }

    private static long sum(LongAdder[] counters) {
        long total = 0;
        for (LongAdder counter : counters) {
            total += counter.sum();
        }
        return total;
    }

    private void rotateIfDue() {
        if (ticker.nanoTime() - nextRotationNanos >= 0) {
            rotate();
        }
    }

    private void rotate() {
        rotate(ticker.nanoTime());
    }

    private void rotate(long now) {
        if (!rotating.tryLock()) {
            return; // another caller is rotating: count in the bucket current now, still in the window
        }
        try {
            rotateHeld(now);
        } finally {
            rotating.unlock();
        }
    }

    /** The rotation's lock, for a test that holds it to show that counting never waits for it. */
    ReentrantLock rotationLock() {
        return rotating;
    }

    private void rotateHeld(long now) {
        long elapsedBuckets = (now - currentBucketStartNanos) / bucketNanos;
        if (elapsedBuckets <= 0) {
            return; // another caller rotated first
        }
        // Clear the buckets the ring moves onto before publishing the new index, so no count made
        // after the switch is lost to a reset; after a long quiet spell every bucket is cleared.
        int toClear = (int) Math.min(elapsedBuckets, BUCKETS);
        int index = current;
        for (int i = 1; i <= toClear; i++) {
            int cleared = (index + i) % BUCKETS;
            primaries[cleared].reset();
            backups[cleared].reset();
        }
        currentBucketStartNanos += elapsedBuckets * bucketNanos;
        current = (int) ((index + elapsedBuckets) % BUCKETS);
        nextRotationNanos = currentBucketStartNanos + bucketNanos;
    }
}
