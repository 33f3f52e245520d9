package io.hedgerow.root.cost;

import io.hedgerow.common.wire.proto.QueryCost;
import io.hedgerow.root.tail.QueryFingerprint;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What each query costs at the leaves, learnt from their answers and kept per query fingerprint
 * (the parsed query, so every spelling of a query shares one entry): the highest cost estimate any
 * partition reported, and an average of the CPU time one sub-request took. The root sends the
 * estimate with the query's next sub-requests ({@code SearchRequest.cost_hint}), so a leaf can
 * queue a query it already knows to be expensive straight into its expensive lane, before any
 * worker spends a moment on it.
 *
 * <p>Bounded: the least recently used entries go first.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: every event loop of the root learns and reads
 * it; each call holds its lock for a map lookup.
 */
public final class QueryCostBook {
    /** The cost learnt for one query. */
    public record Learned(long estimate, long cpuNanos, long answers) {
    }

    /** New CPU readings weigh this much in the average, so it follows a query whose cost changes. */
    static final double CPU_WEIGHT = 0.2;
    public static final int DEFAULT_MAX_ENTRIES = 10_000;

    private final Map<QueryFingerprint, Learned> learned;

    public QueryCostBook(int maxEntries) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries: " + maxEntries + " (expected: >= 1)");
        }
        this.learned = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<QueryFingerprint, Learned> eldest) {
                return size() > maxEntries;
            }
        };
    }

    /** Takes in one partition's answer; answers without a cost (refusals, older leaves) teach nothing. */
    public void learn(QueryFingerprint query, QueryCost cost) {
        learn(query, cost.getEstimate(), cost.getCpuNanos());
    }

    /**
     * Takes in what one search learnt (a search calls this once, with the highest estimate and the
     * mean CPU time of its partitions' answers, so the book's lock is taken once a search, not once
     * a sub-request); zeros teach nothing.
     */
    public synchronized void learn(QueryFingerprint query, long estimate, long cpuNanos) {
        if (query == null || estimate <= 0 && cpuNanos <= 0) {
            return;
        }
        Learned before = learned.get(query);
        learned.put(query, before == null ? new Learned(estimate, cpuNanos, 1)
                : new Learned(Math.max(before.estimate(), estimate),
                        Math.round(before.cpuNanos() + CPU_WEIGHT * (cpuNanos - before.cpuNanos())),
                        before.answers() + 1));
    }

    /** The estimate to send with the query's sub-requests: the highest learnt, or 0 when unknown. */
    public synchronized long hint(QueryFingerprint query) {
        if (query == null) {
            return 0;
        }
        Learned known = learned.get(query);
        return known == null ? 0 : known.estimate();
    }

    /** What is known of the query, or null. */
    public synchronized Learned lookup(QueryFingerprint query) {
        return learned.get(query);
    }

    public synchronized int size() {
        return learned.size();
    }
}
