package io.hedgerow.root.tail;

import io.hedgerow.api.Filter;
import io.hedgerow.api.SearchRequest;
import java.util.List;
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
 * @param shape              the request's filter, sort, from, search_after, lang, aggs, fields and highlight, described; null
 *                           when it has none (the classic scored search)
 */
public record CacheKey(QueryFingerprint fingerprint, int k, boolean storedFields, boolean snippets,
        int totalHitsThreshold, String routing, String shape) {

    public CacheKey {
        Objects.requireNonNull(fingerprint, "fingerprint");
        if (k < 0) {
            throw new IllegalArgumentException("k: " + k + " (expected: >= 0)");
        }
        if (totalHitsThreshold < 1) {
            throw new IllegalArgumentException("totalHitsThreshold: " + totalHitsThreshold + " (expected: >= 1)");
        }
    }

    /** A key of a classic scored search (no filter, sort, paging or language). */
    public CacheKey(QueryFingerprint fingerprint, int k, boolean storedFields, boolean snippets, int totalHitsThreshold,
            String routing) {
        this(fingerprint, k, storedFields, snippets, totalHitsThreshold, routing, null);
    }

    /** The key of a request whose query was fingerprinted already (for the blocklist, say). */
    public static CacheKey of(QueryFingerprint fingerprint, SearchRequest request) {
        return new CacheKey(fingerprint, request.k(), request.storedFields(), request.snippets(),
                request.totalHitsThreshold(), request.routing(), shapeOf(request));
    }

    /** Everything besides the query that changes which hits a request returns and in what order, and its aggregations. */
    static String shapeOf(SearchRequest request) {
        if (request.filter() == null && request.sort().isEmpty() && request.from() == 0 && request.searchAfter() == null
                && request.lang() == null && request.aggs().isEmpty() && request.fields() == null
                && request.highlight() == null) {
            return null;
        }
        // Records and lists print their contents, deterministically; the aggregations' map keeps
        // the order asked, which is the order of the answer's aggregations too.
        return "filter=" + (request.filter() == null ? "none" : described(request.filter())) + ";sort=" + request.sort()
                + ";from=" + request.from() + ";after=" + (request.searchAfter() == null ? "none" : described(request.searchAfter()))
                + ";lang=" + request.lang()
                + (request.aggs().isEmpty() ? "" : ";aggs=" + request.aggs())
                + (request.fields() == null ? "" : ";fields=" + request.fields())
                + (request.highlight() == null ? "" : ";highlight=" + request.highlight());
    }

    /**
     * A filter with every value quoted: a record's own {@code toString} prints {@code terms ["a", "b"]}
     * and {@code term "a, b"} alike, and two filters that match different documents shared a key.
     */
    static String described(Filter filter) {
        return switch (filter) {
            case Filter.Terms terms -> "terms(" + quoted(terms.field()) + "," + described(terms.values()) + ")";
            case Filter.Range range -> "range(" + quoted(range.field()) + ",gte=" + quoted(range.gte()) + ",gt="
                    + quoted(range.gt()) + ",lte=" + quoted(range.lte()) + ",lt=" + quoted(range.lt()) + ")";
            case Filter.Exists exists -> "exists(" + quoted(exists.field()) + ")";
            case Filter.Bool bool -> "bool(must=" + described(bool.must()) + ",should=" + described(bool.should())
                    + ",must_not=" + described(bool.mustNot()) + ")";
        };
    }

    /** Filters, strings (quoted: {@code "null"} is not a missing value) or numbers (tagged by type), in order. */
    private static String described(List<?> values) {
        StringBuilder out = new StringBuilder("[");
        for (Object value : values) {
            if (out.length() > 1) {
                out.append(',');
            }
            out.append(switch (value) {
                case null -> "null";
                case Filter filter -> described(filter);
                case String text -> quoted(text);
                default -> value.getClass().getSimpleName() + ":" + value;
            });
        }
        return out.append(']').toString();
    }

    private static String quoted(String text) {
        return text == null ? "null" : '"' + text.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    /** A rough size of this key on the heap, for the cache's weigher. */
    long estimatedBytes() {
        return 32 + fingerprint.estimatedBytes() + (routing == null ? 0 : 40 + 2L * routing.length())
                + (shape == null ? 0 : 40 + 2L * shape.length());
    }
}
