package io.hedgerow.leaf.write;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Settings of a leaf's live writes.
 *
 * @param nodeId          the leaf's stable name among the leaves that share an index directory: its
 *                        live copies live under {@code <index>/live/<build>/node-<nodeId>/}, so a leaf
 *                        started again under the same name (on any port) serves the writes it took
 *                        before. Null: the leaf claims a directory of its own ({@link LeafDirClaim}),
 *                        which it finds again when started on another port
 * @param refreshInterval how often new writes become searchable
 * @param commitInterval  how often each partition with new writes commits Lucene (bounding what a
 *                        restart replays) and then trims its write-ahead log below what every replica
 *                        holds ({@link LivePartition#trimLog})
 * @param alignedOnClock  refreshes and commits (and the merges they start) run at whole multiples of
 *                        their interval on the wall clock, at the same moments on every leaf, rather
 *                        than at a phase of this leaf's own ({@link io.hedgerow.common.time.ClockWindows})
 * @param termLog         the file a line is appended to each time a copy is told of a new primary term
 *                        or another primary in a term ({@link TermChangeLog}, for the durability
 *                        checker); null: none
 */
public record LiveSettings(String nodeId, Duration refreshInterval, Duration commitInterval, boolean alignedOnClock,
        Path termLog) {
    private static final Pattern NODE_ID = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    public LiveSettings {
        // The alphabet of a membership NodeId too: the leaf registers and names itself in its HelloAck by it.
        if (nodeId != null && (!NODE_ID.matcher(nodeId).matches() || nodeId.equals(".") || nodeId.equals(".."))) {
            throw new IllegalArgumentException("nodeId: '" + nodeId
                    + "' (expected: 1-64 letters, digits, '.', '_' or '-', not '.' or '..', as it names a directory"
                    + " and the leaf's membership node)");
        }
        requirePositive("refreshInterval", refreshInterval);
        requirePositive("commitInterval", commitInterval);
    }

    /** Without a term log. */
    public LiveSettings(String nodeId, Duration refreshInterval, Duration commitInterval, boolean alignedOnClock) {
        this(nodeId, refreshInterval, commitInterval, alignedOnClock, null);
    }

    private static void requirePositive(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
        }
    }

    /** Unnamed, refreshed every 500 ms, committed every 30 s, both aligned on the clock. */
    public static LiveSettings defaults() {
        return new LiveSettings(null, Duration.ofMillis(500), Duration.ofSeconds(30), true, null);
    }

    public LiveSettings withNodeId(String value) {
        return new LiveSettings(value, refreshInterval, commitInterval, alignedOnClock, termLog);
    }

    public LiveSettings withCommitInterval(Duration value) {
        return new LiveSettings(nodeId, refreshInterval, value, alignedOnClock, termLog);
    }

    public LiveSettings withAlignedOnClock(boolean value) {
        return new LiveSettings(nodeId, refreshInterval, commitInterval, value, termLog);
    }

    public LiveSettings withTermLog(Path value) {
        return new LiveSettings(nodeId, refreshInterval, commitInterval, alignedOnClock, value);
    }

}
