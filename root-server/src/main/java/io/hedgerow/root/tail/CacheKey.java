package io.hedgerow.root.tail;

import io.hedgerow.api.Aggregation;
import io.hedgerow.api.Filter;
import io.hedgerow.api.Highlight;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SortField;
import java.util.List;
import java.util.Map;
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
        // Every string quoted and every number tagged by its type: a record's own toString prints
        // names, fields, range keys and tags bare, and crafted ones made two requests print alike.
        // The aggregations' map keeps the order asked, which is the order of the answer's too.
        StringBuilder sort = new StringBuilder("[");
        for (SortField field : request.sort()) {
            sort.append(sort.length() > 1 ? "," : "").append(quoted(field.field())).append(field.descending() ? ":desc" : ":asc");
        }
        return "filter=" + (request.filter() == null ? "none" : described(request.filter())) + ";sort=" + sort.append(']')
                + ";from=" + request.from() + ";after=" + (request.searchAfter() == null ? "none" : described(request.searchAfter()))
                + ";lang=" + quoted(request.lang())
                + (request.aggs().isEmpty() ? "" : ";aggs=" + described(request.aggs()))
                + (request.fields() == null ? "" : ";fields=" + described(request.fields()))
                + (request.highlight() == null ? "" : ";highlight=" + described(request.highlight()));
    }

    /** Aggregations by name, in order, each with every option that changes its answer. */
    static String described(Map<String, Aggregation> aggs) {
        StringBuilder out = new StringBuilder("{");
        for (Map.Entry<String, Aggregation> named : aggs.entrySet()) {
            out.append(out.length() > 1 ? "," : "").append(quoted(named.getKey())).append(':');
            out.append(switch (named.getValue()) {
                case Aggregation.Terms t -> "terms(" + quoted(t.field()) + ",size=" + t.size() + ",shard_size=" + t.shardSize()
                        + ",min_doc_count=" + t.minDocCount() + ",order=" + t.order() + ",missing="
                        + described(java.util.Collections.singletonList(t.missing())) + ")";
                case Aggregation.Range r -> {
                    StringBuilder ranges = new StringBuilder("range(" + quoted(r.field()) + ",keyed=" + r.keyed() + ",[");
                    for (Aggregation.RangeBucket b : r.ranges()) {
                        ranges.append("(").append(quoted(b.key())).append(",from=").append(b.from()).append(",to=")
                                .append(b.to()).append(")");
                    }
                    yield ranges.append("])");
                }
                case Aggregation.Histogram h -> "histogram(" + quoted(h.field()) + ",interval=" + h.interval() + ",offset="
                        + h.offset() + ",min_doc_count=" + h.minDocCount() + ",bounds=" + h.extendedBounds() + ")";
                case Aggregation.DateHistogram d -> "date_histogram(" + quoted(d.field()) + ",fixed=" + d.fixedIntervalMillis()
                        + ",calendar=" + d.calendarInterval() + ",zone=" + quoted(d.timeZone().getId()) + ",offset="
                        + d.offsetMillis() + ",min_doc_count=" + d.minDocCount() + ",bounds=" + d.extendedBounds() + ")";
                case Aggregation.Stats st -> "stats(" + quoted(st.field()) + ",missing=" + st.missing() + ")";
            });
        }
        return out.append('}').toString();
    }

    /** Fields (quoted) and tags (quoted) of a highlight. */
    static String described(Highlight highlight) {
        StringBuilder out = new StringBuilder("{");
        for (Map.Entry<String, Highlight.Field> field : highlight.fields().entrySet()) {
            out.append(out.length() > 1 ? "," : "").append(quoted(field.getKey())).append(":")
                    .append(field.getValue().numberOfFragments()).append('/').append(field.getValue().fragmentSize());
        }
        return out.append("},pre=").append(quoted(highlight.preTag())).append(",post=").append(quoted(highlight.postTag()))
                .toString();
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
