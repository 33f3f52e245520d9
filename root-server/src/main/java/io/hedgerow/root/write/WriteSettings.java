package io.hedgerow.root.write;

import io.hedgerow.coordination.CoordinationSettings;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of the root's write path.
 *
 * @param timeout      how long a leaf has to answer one write request before its replica counts
 *                     as failed (and leaves the in-sync set)
 * @param maxBatchOps  most writes of one partition sent in one request (one fsync per replica)
 * @param maxBatchBytes most bytes of encoded writes in one request (at least one write is sent
 *                     however large): a batch stays well within the leaves' frame limit, whatever
 *                     its documents weigh
 * @param maxQueuedOps most writes queued for one partition; beyond it writes are refused with 503
 *                     and {@code Retry-After} (backpressure, never unbounded buffering)
 * @param retainedLogOps how far behind the most advanced replica a replica may fall and still catch
 *                     up from the write-ahead logs: the logs keep at least this many writes for it;
 *                     one further behind catches up from a snapshot of the primary's copy
 * @param coordination where each partition's primary, term and in-sync set are kept (ZooKeeper,
 *                     {@code --zk}), so that they outlive this root and are shared with other roots;
 *                     null: in this root's memory only, without terms (a single root, as before)
 */
public record WriteSettings(Duration timeout, int maxBatchOps, long maxBatchBytes, int maxQueuedOps,
        long retainedLogOps, CoordinationSettings coordination) {
    /** Default {@link #maxBatchBytes}: a quarter of the default 16 MiB frame, as the leaves' log reads. */
    public static final long DEFAULT_BATCH_BYTES = 4L * 1024 * 1024;

    public WriteSettings {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout: " + timeout + " (expected: > 0)");
        }
        if (maxBatchOps < 1) {
            throw new IllegalArgumentException("maxBatchOps: " + maxBatchOps + " (expected: >= 1)");
        }
        if (maxBatchBytes < 1) {
            throw new IllegalArgumentException("maxBatchBytes: " + maxBatchBytes + " (expected: >= 1)");
        }
        if (maxQueuedOps < maxBatchOps) {
            throw new IllegalArgumentException("maxQueuedOps: " + maxQueuedOps + " (expected: >= maxBatchOps "
                    + maxBatchOps + ")");
        }
        if (retainedLogOps < 0) {
            throw new IllegalArgumentException("retainedLogOps: " + retainedLogOps + " (expected: >= 0)");
        }
    }

    /**
     * 5 s per request, batches of up to 512 writes and 4 MiB, up to 10,000 queued per partition, logs that keep
     * 100,000 writes for a replica behind (about 200 MB of Europarl-sized documents per partition).
     */
    public static WriteSettings defaults() {
        return new WriteSettings(Duration.ofSeconds(5), 512, DEFAULT_BATCH_BYTES, 10_000, 100_000, null);
    }

    /** These settings with the partitions' states kept in the coordination store {@code value} (null: none). */
    public WriteSettings withCoordination(CoordinationSettings value) {
        return new WriteSettings(timeout, maxBatchOps, maxBatchBytes, maxQueuedOps, retainedLogOps, value);
    }

    public WriteSettings withRetainedLogOps(long value) {
        return new WriteSettings(timeout, maxBatchOps, maxBatchBytes, maxQueuedOps, value, coordination);
    }

    public WriteSettings withTimeout(Duration value) {
        return new WriteSettings(value, maxBatchOps, maxBatchBytes, maxQueuedOps, retainedLogOps, coordination);
    }

    public WriteSettings withMaxBatchBytes(long value) {
        return new WriteSettings(timeout, maxBatchOps, value, maxQueuedOps, retainedLogOps, coordination);
    }
}
