package io.hedgerow.leaf.server;

import io.hedgerow.common.wire.proto.AssignAck;
import io.hedgerow.common.wire.proto.AssignPartitions;
import io.hedgerow.common.wire.proto.IndexIdentity;
import io.hedgerow.leaf.index.IndexIdentities;
import io.hedgerow.common.wire.proto.PartitionInfo;
import io.hedgerow.leaf.search.IndexContext;
import io.hedgerow.leaf.search.PartitionSearcher;
import io.hedgerow.leaf.search.PartitionWarmer;
import io.hedgerow.leaf.write.LiveWrites;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The partitions this leaf currently serves. The root says which ones (an
 * {@link AssignPartitions} is the complete set); this opens what is new and closes what is gone.
 *
 * <p><b>Assumptions and guarantees.</b> {@link #get} is lock-free and may run concurrently with
 * {@link #assign}; a searcher returned by {@code get} may be closing, which its
 * {@link PartitionSearcher#tryAcquire()} reports. Assignments are serialized.
 */
final class OpenPartitions implements Closeable {
    private static final System.Logger LOG = System.getLogger(OpenPartitions.class.getName());

    private final IndexContext index;
    private final IndexIdentity identity;
    private final PartitionWarmer warmer;
    private final Map<Integer, PartitionSearcher> open = new ConcurrentHashMap<>();
    /** The partitions' writes; null until attached (a leaf without writes serves its build). */
    private volatile LiveWrites live;

    OpenPartitions(IndexContext index, PartitionWarmer warmer) {
        this.index = index;
        this.identity = IndexIdentities.of(index.manifest());
        this.warmer = warmer;
    }

    /** The identity of the index the partitions come from, as the leaf's HelloAck tells roots. */
    IndexIdentity identity() {
        return identity;
    }

    /** Takes writes through {@code writes} from now on; partitions with a live copy on disk open from it. */
    void attachLive(LiveWrites writes) {
        this.live = writes;
    }

    LiveWrites live() {
        return live;
    }

    /**
     * Serves a newer searcher of a partition (a refresh after writes); the old one closes when its
     * last search releases it. Not synchronized: a refresh may publish while an assignment runs.
     */
    void replace(int partition, PartitionSearcher searcher) {
        PartitionSearcher old = open.put(partition, searcher);
        if (old != null && old != searcher) {
            closeQuietly(old);
        }
    }

    PartitionSearcher get(int partition) {
        return open.get(partition);
    }

    Set<Integer> openPartitions() {
        return new TreeSet<>(open.keySet());
    }

    synchronized AssignAck assign(AssignPartitions assignment) {
        AssignAck.Builder ack = AssignAck.newBuilder().setRequestId(assignment.getRequestId());
        if (!index.indexName().equals(assignment.getIndexName())) {
            return ack.setError("this leaf serves index '" + index.indexName() + "', not '"
                    + assignment.getIndexName() + "'").build();
        }
        Set<Integer> wanted = new HashSet<>(assignment.getPartitionsList());
        for (Integer partition : new ArrayList<>(open.keySet())) {
            if (!wanted.contains(partition)) {
                if (live != null) {
                    live.closePartition(partition);
                }
                closeQuietly(open.remove(partition));
            }
        }
        List<String> errors = new ArrayList<>();
        List<PartitionSearcher> opened = new ArrayList<>();
        int partitions = index.manifest().partitions();
        for (int partition : new TreeSet<>(wanted)) {
            if (partition < 0 || partition >= partitions) {
                errors.add("partition " + partition + " (expected: 0.." + (partitions - 1) + ")");
                continue;
            }
            PartitionSearcher searcher = open.get(partition);
            if (searcher == null && live != null && live.hasCopy(partition)) {
                // It took writes before this leaf restarted: serve the live copy, with its log replayed.
                try {
                    live.open(partition);
                    searcher = open.get(partition);
                } catch (IOException | RuntimeException e) {
                    errors.add("partition " + partition + " (live copy): " + e.getMessage());
                    continue;
                }
            }
            if (searcher == null) {
                try {
                    searcher = PartitionSearcher.open(index, partition);
                    opened.add(searcher);
                } catch (IOException | RuntimeException e) {
                    errors.add("partition " + partition + ": " + e.getMessage());
                    continue;
                }
            }
            ack.addPartitions(PartitionInfo.newBuilder().setPartition(partition).setDocCount(searcher.docCount()));
        }
        warm(opened);
        opened.forEach(searcher -> open.put(searcher.partition(), searcher));
        if (!errors.isEmpty()) {
            ack.setError("could not open " + String.join("; ", errors));
        }
        LOG.log(System.Logger.Level.INFO, "serving partitions {0} of index {1}", openPartitions(), index.indexName());
        return ack.build();
    }

    /** Warms new partitions before they serve; a failed warm-up is logged, not fatal. */
    private void warm(List<PartitionSearcher> opened) {
        long startNanos = System.nanoTime();
        try {
            int searches = warmer.warm(opened);
            if (searches > 0) {
                LOG.log(System.Logger.Level.INFO, "warmed {0} partitions with {1} searches in {2} ms", opened.size(),
                        searches, (System.nanoTime() - startNanos) / 1_000_000);
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "warming partitions failed; serving them cold", e);
        }
    }

    @Override
    public synchronized void close() {
        if (live != null) {
            live.close();
        }
        open.values().forEach(OpenPartitions::closeQuietly);
        open.clear();
    }

    private static void closeQuietly(PartitionSearcher searcher) {
        if (searcher == null) {
            return;
        }
        try {
            searcher.close();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "closing partition " + searcher.partition(), e);
        }
    }
}
