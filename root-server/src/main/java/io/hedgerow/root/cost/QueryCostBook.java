package io.hedgerow.root.cost;

import io.hedgerow.common.wire.proto.QueryCost;
import io.hedgerow.root.tail.QueryFingerprint;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What each query costs at the leaves, learnt from their answers and kept per query fingerprint
 * (the parsed query, so every spelling of a query shares one entry): the highest cost estimate any
 * partition reported, and an average of the CPU time one sub-request took. The root sends the
 * estimate with the query's next sub-requests ({@code SearchRequest.cost_hint}), so a leaf can
 * queue a query it already knows to be expensive straight into its expensive lane, before any
 * worker spends a moment on it.
 *
 * <p>Bounded: past {@code maxEntries}, the least recently used entries go first (a hint, a lookup
 * or a lesson is a use). In a book of 16 entries or more they go a sixteenth at a time, so that
 * eviction, a pass over the book, is paid once per that many new queries rather than once per new
 * query: such a book holds between 15/16 of its bound and its bound. A smaller book evicts one
 * entry at a time, strictly the least recently used.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe and without a lock on the search path: every
 * event loop reads a hint as each search starts and teaches what it learnt as it ends, and both are
 * a concurrent map's read or insert, a compare-and-set on the entry, and one atomic increment for
 * the order of use. The one thread that finds the book over its bound evicts, under a lock no
 * search waits for (another that finds it so meanwhile leaves it to that one). Uses that race are
 * ordered as their increments were; a lesson racing the eviction of its entry is taught again to a
 * fresh entry.
 */
public final class QueryCostBook {
    /** The cost learnt for one query. */
    public record Learned(long estimate, long cpuNanos, long answers) {
    }

    /** New CPU readings weigh this much in the average, so it follows a query whose cost changes. */
    static final double CPU_WEIGHT = 0.2;
    public static final int DEFAULT_MAX_ENTRIES = 10_000;
    /** A book of at least this many entries evicts a sixteenth of them at a time. */
    private static final int EVICTION_SHARE = 16;

    private final int maxEntries;
    /** The size an eviction pass leaves the book at. */
    private final int keepEntries;
    private final ConcurrentHashMap<QueryFingerprint, Entry> learned = new ConcurrentHashMap<>();
    /** Counts uses: the higher an entry's {@link Entry#lastUse}, the more recently it was used. */
    private final AtomicLong uses = new AtomicLong();
    private final ReentrantLock evicting = new ReentrantLock();

    /** One query's cost and when it was last used. */
    private static final class Entry {
        final AtomicReference<Learned> learned;
        volatile long lastUse;

        Entry(Learned learned, long use) {
            this.learned = new AtomicReference<>(learned);
            this.lastUse = use;
        }
    }

    public QueryCostBook(int maxEntries) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries: " + maxEntries + " (expected: >= 1)");
        }
        this.maxEntries = maxEntries;
        this.keepEntries = maxEntries - maxEntries / EVICTION_SHARE;
    }

    /** Takes in one partition's answer; answers without a cost (refusals, older leaves) teach nothing. */
    public void learn(QueryFingerprint query, QueryCost cost) {
        learn(query, cost.getEstimate(), cost.getCpuNanos());
    }

    /**
     * Takes in what one search learnt (a search calls this once, with the highest estimate and the
     * mean CPU time of its partitions' answers, so the book is written once a search, not once a
     * sub-request); zeros teach nothing.
     */
    public void learn(QueryFingerprint query, long estimate, long cpuNanos) {
        if (query == null || estimate <= 0 && cpuNanos <= 0) {
            return;
        }
        while (true) {
            long use = uses.incrementAndGet();
            Entry entry = learned.get(query);
            if (entry == null) {
                entry = new Entry(new Learned(estimate, cpuNanos, 1), use);
                Entry raced = learned.putIfAbsent(query, entry);
                if (raced == null) {
                    evictIfOver();
                    return;
                }
                entry = raced;
            }
            entry.learned.updateAndGet(before -> new Learned(Math.max(before.estimate(), estimate),
                    Math.round(before.cpuNanos() + CPU_WEIGHT * (cpuNanos - before.cpuNanos())), before.answers() + 1));
            entry.lastUse = use;
            if (learned.get(query) == entry) {
                return;
            }
            // Evicted while it was being taught: teach a fresh entry (the lesson is in no other).
        }
    }

    /** The estimate to send with the query's sub-requests: the highest learnt, or 0 when unknown. */
    public long hint(QueryFingerprint query) {
        Learned known = lookup(query);
        return known == null ? 0 : known.estimate();
    }

    /** What is known of the query, or null. */
    public Learned lookup(QueryFingerprint query) {
        if (query == null) {
            return null;
        }
        Entry entry = learned.get(query);
        if (entry == null) {
            return null;
        }
        entry.lastUse = uses.incrementAndGet();
        return entry.learned.get();
    }

    public int size() {
        return learned.size();
    }

    /**
     * Past the bound, the least recently used entries go, down to {@link #keepEntries}: one pass
     * finds the last use that stays. Entries used during the pass keep their place.
     */
    private void evictIfOver() {
        if (learned.size() <= maxEntries || !evicting.tryLock()) {
            return;
        }
        try {
            int over = learned.size() - keepEntries;
            if (over <= 0) {
                return;
            }
            long[] lastUses = new long[learned.size() + 16];
            int n = 0;
            for (Entry entry : learned.values()) {
                if (n == lastUses.length) {
                    break; // grew during the pass: the newest entries are not candidates anyway
                }
                lastUses[n++] = entry.lastUse;
            }
            Arrays.sort(lastUses, 0, n);
            long oldestKept = lastUses[Math.min(n - 1, over)];
            learned.entrySet().removeIf(e -> e.getValue().lastUse < oldestKept);
        } finally {
            evicting.unlock();
        }
    }
}
