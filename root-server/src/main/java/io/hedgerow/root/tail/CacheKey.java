package io.hedgerow.root.tail;

import io.hedgerow.api.SearchRequest;
import java.util.Objects;

/**
 * What makes two requests share a cached result: the query's {@link QueryFingerprint} and every
 * setting that changes what a complete result contains. Left out, because they change how a result
 * is obtained but not what a complete one holds: the hedge mode and hedge delay, the timeout (a
 * result that a short timeout cut short is tainted, and a tainted entry is never served as
 * complete), a minimum coverage, and {@code explain} (a cached result carries no trace).
 *
 * @param fingerprint        the parsed query
 * @param k                  hits wanted
 * @param storedFields       whether hits carry their stored fields
 * @param snippets           whether hits carry a snippet
 * @param totalHitsThreshold how far hits are counted exactly
 * @param routing            the routing value (which partitions were searched), or null for all
 */
public record CacheKey(QueryFingerprint fingerprint, int k, boolean storedFields, boolean snippets,
        int totalHitsThreshold, String routing) {

    public CacheKey {
        Objects.requireNonNull(fingerprint, "fingerprint");
        if (k < 1) {
            throw new IllegalArgumentException("k: " + k + " (expected: >= 1)");
        }
        if (totalHitsThreshold < 1) {
            throw new IllegalArgumentException("totalHitsThreshold: " + totalHitsThreshold + " (expected: >= 1)");
        }
    }

    /** The key of a request whose query was fingerprinted already (for the blocklist, say). */
    public static CacheKey of(QueryFingerprint fingerprint, SearchRequest request) {
        return new CacheKey(fingerprint, request.k(), request.storedFields(), request.snippets(),
                request.totalHitsThreshold(), request.routing());
    }

    /** A rough size of this key on the heap, for the cache's weigher. */
    long estimatedBytes() {
        return 32 + fingerprint.estimatedBytes() + (routing == null ? 0 : 40 + 2L * routing.length());
    }
}
