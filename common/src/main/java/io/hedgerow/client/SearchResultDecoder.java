package io.hedgerow.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.hedgerow.api.Aggregation;
import io.hedgerow.api.AggregationResult;
import io.hedgerow.api.CacheStatus;
import io.hedgerow.api.Coverage;
import io.hedgerow.api.Hit;
import io.hedgerow.api.LeafTrace;
import io.hedgerow.api.PartitionError;
import io.hedgerow.api.SearchResult;
import io.hedgerow.api.SortField;
import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.api.TotalHits;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The JSON of a {@code /search} answer back into a {@link SearchResult}, as the root's
 * {@code JsonResponses.writeSearchResult} writes it: absent optional fields take the values the
 * root leaves out ({@code fields} empty, {@code snippet} null, {@code errors}, {@code trace} and
 * {@code leaves} empty, a trace's {@code partition} -1). Times come back to the microsecond and the
 * coverage's {@code docs_fraction} to six digits, as the root rounds them. A hit of a search sorted
 * by fields only has a null {@code score} (NaN here), and a hit of a sorted search its {@code sort}
 * values, typed as in process by the request's sort keys.
 *
 * <p>A field added to {@link SearchResult}, {@link Hit} or {@link Coverage} is read here (one line
 * in the method of its object), and documented in {@code SearchResult} of the root's
 * {@code openapi.json}.
 *
 * @throws IllegalArgumentException from each method, naming the field, when the body is not a result
 */
final class SearchResultDecoder {
    private SearchResultDecoder() {
    }

    /**
     * @param sort the request's sort keys, which say how each hit's sort values are typed
     * @param aggs the request's aggregations, which say how each of {@code aggregations} is shaped
     */
    static SearchResult decode(JsonNode body, List<SortField> sort, Map<String, Aggregation> aggs) {
        List<Hit> hits = new ArrayList<>();
        for (JsonNode hit : array(body, "hits")) {
            hits.add(hit(hit, sort));
        }
        JsonNode total = required(body, "total_hits");
        TotalHits totalHits = new TotalHits(required(total, "value").asLong(),
                relation(required(total, "relation").asText()));
        long tookNanos = Math.round(required(body, "took_ms").asDouble() * 1e6);
        List<PartitionError> errors = new ArrayList<>();
        for (JsonNode error : array(body, "errors")) {
            errors.add(new PartitionError(required(error, "partition").asInt(), errorKind(required(error, "kind").asText()),
                    text(error, "leaf"), text(error, "detail")));
        }
        List<SubRequestTrace> trace = new ArrayList<>();
        for (JsonNode sub : array(body, "trace")) {
            trace.add(subRequest(sub));
        }
        List<LeafTrace> leaves = new ArrayList<>();
        for (JsonNode leaf : array(body, "leaves")) {
            leaves.add(new LeafTrace(required(leaf, "leaf").asText(), required(leaf, "state").asText(), text(leaf, "reason"),
                    required(leaf, "outstanding").asInt(), number(leaf, "rank"), number(leaf, "response_ms"),
                    number(leaf, "service_ms"), number(leaf, "queue")));
        }
        Map<String, AggregationResult> aggregations = aggs.isEmpty() ? Map.of() : new LinkedHashMap<>();
        JsonNode answered = body.path("aggregations");
        for (Map.Entry<String, Aggregation> agg : aggs.entrySet()) {
            JsonNode result = answered.get(agg.getKey());
            if (result == null) {
                throw new IllegalArgumentException("missing aggregation '" + agg.getKey() + "' in " + abbreviated(answered));
            }
            aggregations.put(agg.getKey(), aggregation(agg.getValue(), result));
        }
        return new SearchResult(hits, totalHits, tookNanos, coverage(required(body, "coverage")), errors, trace,
                cache(required(body, "cache").asText()), leaves, aggregations);
    }

    /** As {@code JsonResponses.writeAggregations} writes it: keys typed as the kind of aggregation has them. */
    static AggregationResult aggregation(Aggregation agg, JsonNode result) {
        if (agg instanceof Aggregation.Stats) {
            long count = required(result, "count").asLong();
            Double min = number(result, "min");
            Double max = number(result, "max");
            return new AggregationResult.Stats(count, min == null ? Double.NaN : min, max == null ? Double.NaN : max,
                    required(result, "sum").asDouble());
        }
        List<AggregationResult.Bucket> buckets = new ArrayList<>();
        if (agg instanceof Aggregation.Range range && range.keyed()) {
            // An object by key, each bucket without its key, in the order asked.
            JsonNode keyed = required(result, "buckets");
            for (Aggregation.RangeBucket r : range.ranges()) {
                JsonNode bucket = required(keyed, r.key());
                buckets.add(new AggregationResult.Bucket(r.key(), null, required(bucket, "doc_count").asLong(),
                        number(bucket, "from"), number(bucket, "to")));
            }
            return new AggregationResult.Buckets(buckets, true);
        }
        for (JsonNode bucket : array(result, "buckets")) {
            JsonNode key = required(bucket, "key");
            Object typed = switch (agg) {
                case Aggregation.Histogram histogram -> key.asDouble();
                case Aggregation.DateHistogram dates -> key.asLong();
                case Aggregation.Range range -> key.asText();
                default -> key.isTextual() ? key.asText() : key.isIntegralNumber() ? (Object) key.asLong() : (Object) key.asDouble();
            };
            buckets.add(new AggregationResult.Bucket(typed, text(bucket, "key_as_string"),
                    required(bucket, "doc_count").asLong(), number(bucket, "from"), number(bucket, "to")));
        }
        if (agg instanceof Aggregation.Terms) {
            return new AggregationResult.Terms(buckets, required(result, "doc_count_error_upper_bound").asLong(),
                    required(result, "sum_other_doc_count").asLong());
        }
        return new AggregationResult.Buckets(buckets);
    }

    static Hit hit(JsonNode hit, List<SortField> sort) {
        Map<String, String> fields = new LinkedHashMap<>();
        Map<String, List<String>> multiValues = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> field : hit.path("fields").properties()) {
            JsonNode value = field.getValue();
            if (value.isArray() && !value.isEmpty()) { // a multi-valued field: every value, the first in fields
                List<String> values = new ArrayList<>(value.size());
                value.forEach(each -> values.add(each.isTextual() ? each.asText() : each.toString()));
                fields.put(field.getKey(), values.get(0));
                if (values.size() > 1) {
                    multiValues.put(field.getKey(), values);
                }
            } else {
                fields.put(field.getKey(), value.isTextual() ? value.asText() : value.toString());
            }
        }
        JsonNode score = hit.get("score");
        if (score == null) {
            throw new IllegalArgumentException("missing field 'score' in " + abbreviated(hit));
        }
        return new Hit(required(hit, "id").asText(), score.isNull() ? Float.NaN : (float) score.asDouble(),
                required(hit, "partition").asInt(), fields, text(hit, "snippet"), sortValues(hit.get("sort"), sort),
                highlight(hit.get("highlight")), multiValues);
    }

    /** {@code "highlight": {"body": ["...", "..."]}}; null when absent (none asked, or none matched). */
    private static Map<String, List<String>> highlight(JsonNode highlight) {
        if (highlight == null || highlight.isNull()) {
            return null;
        }
        if (!highlight.isObject()) {
            throw new IllegalArgumentException("field 'highlight': " + highlight.getNodeType() + " (expected: an object)");
        }
        Map<String, List<String>> fields = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> field : highlight.properties()) {
            List<String> fragments = new ArrayList<>(field.getValue().size());
            field.getValue().forEach(fragment -> fragments.add(fragment.asText()));
            fields.put(field.getKey(), List.copyOf(fragments));
        }
        return java.util.Collections.unmodifiableMap(fields);
    }

    /**
     * As {@code Hit.sort} is typed in process: Float for a {@code _score} key, Long for an integral
     * number (long, date and boolean fields), Double for another number, String for a keyword and
     * for the id at the end; null when the hit has none.
     */
    private static List<Object> sortValues(JsonNode values, List<SortField> sort) {
        if (values == null || values.isNull()) {
            return null;
        }
        if (!values.isArray()) {
            throw new IllegalArgumentException("field 'sort': " + values.getNodeType() + " (expected: an array)");
        }
        List<Object> typed = new ArrayList<>(values.size());
        for (JsonNode value : values) {
            int key = typed.size();
            if (value.isNull()) {
                typed.add(null);
            } else if (key < sort.size() && SortField.SCORE.equals(sort.get(key).field())) {
                typed.add(value.floatValue());
            } else if (value.isIntegralNumber()) {
                typed.add(value.longValue());
            } else if (value.isNumber()) {
                typed.add(value.doubleValue());
            } else {
                typed.add(value.asText());
            }
        }
        return typed;
    }

    static Coverage coverage(JsonNode coverage) {
        // The root writes "degraded" only when something is (SearchResult.degraded() is derived from it).
        Set<Coverage.Degradation> degraded = EnumSet.noneOf(Coverage.Degradation.class);
        for (JsonNode reason : coverage.path("degraded")) {
            degraded.add(degradation(reason.asText()));
        }
        return new Coverage(required(coverage, "partitions_total").asInt(),
                required(coverage, "partitions_answered").asInt(), required(coverage, "docs_fraction").asDouble(),
                degraded);
    }

    private static Coverage.Degradation degradation(String label) {
        for (Coverage.Degradation reason : Coverage.Degradation.values()) {
            if (reason.label().equals(label)) {
                return reason;
            }
        }
        throw new IllegalArgumentException("coverage.degraded: '" + label + "' (expected one of: "
                + List.of(Coverage.Degradation.values()).stream().map(Coverage.Degradation::label).toList() + ")");
    }

    private static SubRequestTrace subRequest(JsonNode sub) {
        String kind = required(sub, "kind").asText();
        SubRequestTrace.Kind parsed;
        try {
            parsed = SubRequestTrace.Kind.valueOf(kind.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("trace kind: '" + kind + "' (expected one of: "
                    + List.of(SubRequestTrace.Kind.values()) + ")");
        }
        return new SubRequestTrace(sub.path("partition").asInt(-1), required(sub, "leaf").asText(), parsed,
                required(sub, "sent_ms").asDouble(), number(sub, "answered_ms"), text(sub, "status"),
                required(sub, "used").asBoolean(), required(sub, "cancelled").asBoolean());
    }

    private static TotalHits.Relation relation(String label) {
        for (TotalHits.Relation relation : TotalHits.Relation.values()) {
            if (relation.label().equals(label)) {
                return relation;
            }
        }
        throw new IllegalArgumentException("total_hits.relation: '" + label + "' (expected: eq or gte)");
    }

    private static PartitionError.Kind errorKind(String label) {
        for (PartitionError.Kind kind : PartitionError.Kind.values()) {
            if (kind.label().equals(label)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("errors[].kind: '" + label + "' (expected one of: "
                + List.of(PartitionError.Kind.values()) + ")");
    }

    private static CacheStatus cache(String label) {
        for (CacheStatus status : CacheStatus.values()) {
            if (status.label().equals(label)) {
                return status;
            }
        }
        throw new IllegalArgumentException("cache: '" + label + "' (expected: hit, miss, refreshed or off)");
    }

    private static JsonNode required(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            throw new IllegalArgumentException("missing field '" + field + "' in " + abbreviated(node));
        }
        return value;
    }

    private static Iterable<JsonNode> array(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null) {
            return List.of();
        }
        if (!value.isArray()) {
            throw new IllegalArgumentException("field '" + field + "': " + value.getNodeType() + " (expected: an array)");
        }
        return value;
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }

    private static Double number(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? null : value.asDouble();
    }

    private static String abbreviated(JsonNode node) {
        String text = node.toString();
        return text.length() > 200 ? text.substring(0, 200) + "..." : text;
    }
}
