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
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntConsumer;

/**
 * The partitions this leaf currently serves. The root says which ones (an
 * {@link AssignPartitions} is the complete set); this opens what is new and closes what is gone.
 *
 * <p><b>Assumptions and guarantees.</b> {@link #acquire} and {@link #get} are lock-free and may run
 * concurrently with {@link #assign} and {@link #replace}. {@code acquire} returns a pinned searcher
 * unless the partition is not open: a refresh racing it never makes a served partition look
 * unassigned. A searcher returned by {@code get} may be closing. Assignments are serialized.
 */
final class OpenPartitions implements Closeable {
    private static final System.Logger LOG = System.getLogger(OpenPartitions.class.getName());

    private final IndexContext index;
    private final IndexIdentity identity;
    private final PartitionWarmer warmer;
    private final Map<Integer, PartitionSearcher> open = new ConcurrentHashMap<>();
    /** The partitions' writes; null until attached (a leaf without writes serves its build). */
    private volatile LiveWrites live;
    /** See {@link #afterLookup(IntConsumer)}; does nothing outside tests. */
    private volatile IntConsumer afterLookup = partition -> { };
    /** An assignment is opening and warming partitions; for the leaf's {@code /ready}. */
    private volatile boolean assigning;
    /** Assignments answered, warm-ups run, their searches and their time; for the leaf's {@code /metrics}. */
    final LongAdder assignments = new LongAdder();
    final LongAdder warmups = new LongAdder();
    final LongAdder warmupSearches = new LongAdder();
    final LongAdder warmupNanos = new LongAdder();
    final LongAdder warmupFailures = new LongAdder();

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

    /** The partition's current searcher, not pinned (it may be closing); null if it is not open here. */
    PartitionSearcher get(int partition) {
        return open.get(partition);
    }

    /**
     * The partition's current searcher, pinned ({@link PartitionSearcher#tryAcquire()}) for the
     * caller, who {@link Partitions#release releases} it; null only when the partition is not open
     * here. A refresh may close the searcher found between the lookup and the pin ({@link
     * #replace} publishes the newer one first, then closes the old): the pin then fails, and the
     * lookup is tried again, which finds the newer one (as Lucene's {@code
     * ReferenceManager.acquire} retries). It gives up only when the partition is gone from the map
     * or the same closed searcher is still there (the leaf is closing).
     */
    PartitionSearcher acquire(int partition) {
        while (true) {
            PartitionSearcher searcher = open.get(partition);
            if (searcher == null) {
                return null;
            }
            afterLookup.accept(partition);
            if (searcher.tryAcquire()) {
                return searcher;
            }
            if (open.get(partition) == searcher) {
                return null; // closed but not replaced: the leaf closes
            }
            // Replaced (or removed) while we looked: look again.
        }
    }

    /** A seam for tests: runs after {@link #acquire} found a searcher, before it pins it. */
    void afterLookup(IntConsumer hook) {
        this.afterLookup = hook;
    }

    Set<Integer> openPartitions() {
        return new TreeSet<>(open.keySet());
    }

    /** Whether an assignment is opening or warming partitions right now. */
    boolean assigning() {
        return assigning;
    }

    synchronized AssignAck assign(AssignPartitions assignment) {
        assigning = true;
        try {
            return assignNow(assignment);
        } finally {
            assigning = false;
            assignments.increment();
        }
    }

    private AssignAck assignNow(AssignPartitions assignment) {
        AssignAck.Builder ack = AssignAck.newBuilder().setRequestId(assignment.getRequestId());
        if (!index.indexName().equals(assignment.getIndexName())) {
            return ack.setError("this leaf serves index '" + index.indexName() + "', not '"
                    + assignment.getIndexName() + "'").build();
        }
        Set<Integer> wanted = new HashSet<>(assignment.getPartitionsList());
        Set<Integer> before = new HashSet<>(open.keySet());
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
        List<PartitionSearcher> liveCopies = new ArrayList<>(); // pinned until warmed
        int partitions = index.manifest().partitions();
        for (int partition : new TreeSet<>(wanted)) {
            if (partition < 0 || partition >= partitions) {
                errors.add("partition " + partition + " (expected: 0.." + (partitions - 1) + ")");
                continue;
            }
            PartitionSearcher searcher = open.get(partition);
            if (searcher == null && live != null && live.hasCopy(partition)) {
                // It took writes before this leaf restarted: serve the live copy, with its log replayed.
                // Opening it publishes its searcher at once; it is warmed with the others before the
                // ack says the partition is served, pinned meanwhile (a refresh may replace it).
                try {
                    live.open(partition);
                    searcher = acquire(partition);
                } catch (IOException | RuntimeException e) {
                    errors.add("partition " + partition + " (live copy): " + e.getMessage());
                    continue;
                }
                if (searcher != null) {
                    liveCopies.add(searcher);
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
        List<PartitionSearcher> toWarm = new ArrayList<>(opened);
        toWarm.addAll(liveCopies);
        warm(toWarm);
        liveCopies.forEach(Partitions::release);
        opened.forEach(searcher -> open.put(searcher.partition(), searcher));
        if (!errors.isEmpty()) {
            ack.setError("could not open " + String.join("; ", errors));
        }
        if (!before.equals(open.keySet())) {
            // The roots send the assignment again every few seconds; only a change is news.
            LOG.log(System.Logger.Level.INFO, "serving partitions {0} of index {1}", openPartitions(), index.indexName());
        }
        return ack.build();
    }

    /**
     * Warms new partitions (opened from the build, or from a live copy found on disk) before the
     * ack says they are served; a failed warm-up is logged, not fatal.
     */
    private void warm(List<PartitionSearcher> opened) {
        long startNanos = System.nanoTime();
        try {
            int searches = warmer.warm(opened);
            if (!opened.isEmpty()) {
                warmups.increment();
            }
            warmupSearches.add(searches);
            warmupNanos.add(System.nanoTime() - startNanos);
            if (searches > 0) {
                LOG.log(System.Logger.Level.INFO, "warmed {0} partitions with {1} searches in {2} ms", opened.size(),
                        searches, (System.nanoTime() - startNanos) / 1_000_000);
            }
        } catch (IOException | RuntimeException e) {
            warmupFailures.increment();
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
