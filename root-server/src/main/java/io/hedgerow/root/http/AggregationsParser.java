package io.hedgerow.root.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.hedgerow.api.Aggregation;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A search body's {@code aggs} (or {@code aggregations}), in Elasticsearch's shapes: each named
 * aggregation read into an {@link Aggregation}, each problem an {@link ApiException} naming where in
 * the body it is and what was expected. The rest of the body's trees are {@link SearchBodyParts}'.
 */
final class AggregationsParser {
    private AggregationsParser() {
    }

    /**
     * {@code aggs}: an object of named aggregations, each an object with one key, its kind:
     * {@code terms} (field, size, shard_size, min_doc_count, order, missing), {@code range} (field,
     * ranges of from/to/key, keyed), {@code histogram} (field, interval, min_doc_count, offset,
     * extended_bounds), {@code date_histogram} (field, fixed_interval or calendar_interval,
     * time_zone, offset, min_doc_count, extended_bounds) or {@code stats} (field, missing).
     */
    static Map<String, Aggregation> parse(JsonNode node, String path) throws ApiException {
        if (!node.isObject()) {
            throw ApiException.badRequest(path + ": expected an object of named aggregations, such as {\"langs\": {\"terms\":"
                    + " {\"field\": \"lang\"}}}");
        }
        Map<String, Aggregation> aggs = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> named = it.next();
            aggs.put(named.getKey(), aggregation(named.getValue(), path + "." + named.getKey()));
        }
        return aggs;
    }

    private static Aggregation aggregation(JsonNode node, String where) throws ApiException {
        if (!node.isObject() || node.size() != 1) {
            throw ApiException.badRequest(where + ": expected an object with one key: terms, range, histogram,"
                    + " date_histogram or stats (sub-aggregations are not supported)");
        }
        Map.Entry<String, JsonNode> only = node.fields().next();
        String kind = only.getKey();
        JsonNode body = only.getValue();
        String at = where + "." + kind;
        if (!body.isObject()) {
            throw ApiException.badRequest(at + ": expected an object with a field");
        }
        try {
            return switch (kind) {
                case "terms" -> {
                    allow(body, at, "field", "size", "shard_size", "min_doc_count", "order", "missing");
                    int size = body.has("size") ? integer(body.get("size"), at + ".size") : Aggregation.Terms.DEFAULT_SIZE;
                    int minDocCount = body.has("min_doc_count") ? integer(body.get("min_doc_count"), at + ".min_doc_count") : 1;
                    if (minDocCount < 0) {
                        throw ApiException.badRequest(at + ".min_doc_count: " + minDocCount + " (expected: >= 0; 0 adds"
                                + " every value of the field that no matching document has, counted 0)");
                    }
                    yield new Aggregation.Terms(field(body, at), size,
                            body.has("shard_size") ? Math.max(size, integer(body.get("shard_size"), at + ".shard_size"))
                                    : Aggregation.Terms.defaultShardSize(size),
                            minDocCount, termsOrder(body.get("order"), at + ".order"), missing(body.get("missing"), at + ".missing"));
                }
                case "range" -> {
                    allow(body, at, "field", "ranges", "keyed");
                    JsonNode ranges = body.get("ranges");
                    if (ranges == null || !ranges.isArray()) {
                        throw ApiException.badRequest(at + ".ranges: expected an array of {\"from\": a, \"to\": b, \"key\": \"name\"}");
                    }
                    List<Aggregation.RangeBucket> buckets = new ArrayList<>();
                    int i = 0;
                    for (JsonNode range : ranges) {
                        String r = at + ".ranges[" + i++ + "]";
                        if (!range.isObject()) {
                            throw ApiException.badRequest(r + ": expected {\"from\": a, \"to\": b, \"key\": \"name\"}");
                        }
                        allow(range, r, "from", "to", "key");
                        JsonNode key = range.get("key");
                        if (key != null && !key.isTextual()) {
                            throw ApiException.badRequest(r + ".key: expected a string");
                        }
                        try {
                            buckets.add(new Aggregation.RangeBucket(key == null ? null : key.asText(),
                                    number(range.get("from"), r + ".from"), number(range.get("to"), r + ".to")));
                        } catch (IllegalArgumentException e) {
                            throw ApiException.badRequest(r + ": " + e.getMessage());
                        }
                    }
                    yield new Aggregation.Range(field(body, at), buckets, bool(body.get("keyed"), at + ".keyed"));
                }
                case "histogram" -> {
                    allow(body, at, "field", "interval", "min_doc_count", "offset", "extended_bounds");
                    Double interval = number(body.get("interval"), at + ".interval");
                    if (interval == null) {
                        throw ApiException.badRequest(at + ": missing interval (expected: a number > 0)");
                    }
                    Double offset = number(body.get("offset"), at + ".offset");
                    yield new Aggregation.Histogram(field(body, at), interval, histogramMinDocCount(body, at),
                            offset == null ? 0 : offset, extendedBounds(body.get("extended_bounds"), at + ".extended_bounds", false));
                }
                case "date_histogram" -> {
                    allow(body, at, "field", "fixed_interval", "calendar_interval", "time_zone", "offset", "min_doc_count",
                            "extended_bounds");
                    JsonNode fixed = body.get("fixed_interval");
                    JsonNode calendar = body.get("calendar_interval");
                    if ((fixed == null) == (calendar == null)) {
                        throw ApiException.badRequest(at + ": expected exactly one of fixed_interval (such as \"1d\") and"
                                + " calendar_interval (such as \"month\")");
                    }
                    JsonNode interval = fixed != null ? fixed : calendar;
                    if (!interval.isTextual()) {
                        throw ApiException.badRequest(at + "." + (fixed != null ? "fixed_interval" : "calendar_interval")
                                + ": expected a string");
                    }
                    long fixedMillis = fixed != null ? Aggregation.DateHistogram.parseFixed(interval.asText()) : 0;
                    Aggregation.CalendarUnit unit = fixed != null ? null : Aggregation.CalendarUnit.parse(interval.asText());
                    yield new Aggregation.DateHistogram(field(body, at), fixedMillis, unit,
                            timeZone(body.get("time_zone"), at + ".time_zone"), dateOffset(body.get("offset"), at + ".offset"),
                            histogramMinDocCount(body, at), extendedBounds(body.get("extended_bounds"), at + ".extended_bounds", true));
                }
                case "stats" -> {
                    allow(body, at, "field", "missing");
                    JsonNode missing = body.get("missing");
                    Double value = number(missing, at + ".missing");
                    if (value != null && !Double.isFinite(value)) {
                        throw ApiException.badRequest(at + ".missing: " + value + " (expected: a finite number)");
                    }
                    yield new Aggregation.Stats(field(body, at), value);
                }
                default -> throw ApiException.badRequest(where + ": unknown aggregation '" + kind
                        + "' (expected: terms, range, histogram, date_histogram or stats)");
            };
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(at + ": " + e.getMessage());
        }
    }

    /** Elasticsearch's {@code {"_count": "desc"}} (the default) or {@code {"_key": "asc"}}; one key only. */
    private static Aggregation.TermsOrder termsOrder(JsonNode order, String at) throws ApiException {
        if (order == null || order.isNull()) {
            return Aggregation.TermsOrder.COUNT_DESC;
        }
        if (order.isArray() && order.size() == 1) {
            order = order.get(0);
        }
        if (!order.isObject() || order.size() != 1 || !order.fields().next().getValue().isTextual()) {
            throw ApiException.badRequest(at + ": " + order + " (expected: {\"_count\": \"desc\"|\"asc\"} or"
                    + " {\"_key\": \"asc\"|\"desc\"})");
        }
        Map.Entry<String, JsonNode> only = order.fields().next();
        try {
            return Aggregation.TermsOrder.of(only.getKey(), only.getValue().asText());
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(at + ": " + e.getMessage());
        }
    }

    /** A terms' missing value: a string (a keyword, or a date the leaf parses) or a number. */
    private static Object missing(JsonNode missing, String at) throws ApiException {
        if (missing == null || missing.isNull()) {
            return null;
        }
        if (missing.isTextual()) {
            return missing.asText();
        }
        if (missing.isIntegralNumber() && missing.canConvertToLong()) {
            return missing.asLong();
        }
        if (missing.isNumber() && Double.isFinite(missing.asDouble())) {
            return missing.asDouble();
        }
        throw ApiException.badRequest(at + ": " + missing + " (expected: a string or a number, as the field's values)");
    }

    private static boolean bool(JsonNode value, String at) throws ApiException {
        if (value == null || value.isNull()) {
            return false;
        }
        if (!value.isBoolean()) {
            throw ApiException.badRequest(at + ": " + value + " (expected: true or false)");
        }
        return value.asBoolean();
    }

    /** A histogram's min_doc_count: 0 (Elasticsearch's default) or more. */
    private static int histogramMinDocCount(JsonNode body, String at) throws ApiException {
        int min = body.has("min_doc_count") ? integer(body.get("min_doc_count"), at + ".min_doc_count") : 0;
        if (min < 0) {
            throw ApiException.badRequest(at + ".min_doc_count: " + min + " (expected: >= 0)");
        }
        return min;
    }

    /** {@code {"min": a, "max": b}}: numbers, or (a date histogram's) epoch millis or ISO 8601 instants. */
    private static Aggregation.ExtendedBounds extendedBounds(JsonNode bounds, String at, boolean dates) throws ApiException {
        if (bounds == null || bounds.isNull()) {
            return null;
        }
        if (!bounds.isObject()) {
            throw ApiException.badRequest(at + ": " + bounds + " (expected: {\"min\": a, \"max\": b})");
        }
        allow(bounds, at, "min", "max");
        Double min = bound(bounds.get("min"), at + ".min", dates);
        Double max = bound(bounds.get("max"), at + ".max", dates);
        if (min == null || max == null) {
            throw ApiException.badRequest(at + ": expected both min and max");
        }
        return new Aggregation.ExtendedBounds(min, max);
    }

    private static Double bound(JsonNode value, String at, boolean dates) throws ApiException {
        if (dates && value != null && value.isTextual()) {
            try {
                return (double) java.time.Instant.parse(value.asText()).toEpochMilli();
            } catch (java.time.format.DateTimeParseException e) {
                throw ApiException.badRequest(at + ": '" + value.asText() + "' (expected: epoch millis or an ISO 8601"
                        + " instant such as 2024-01-01T00:00:00Z)");
            }
        }
        return number(value, at);
    }

    /** An IANA zone id ({@code Europe/Paris}) or an offset ({@code +01:00}); UTC when absent. */
    private static java.time.ZoneId timeZone(JsonNode zone, String at) throws ApiException {
        if (zone == null || zone.isNull()) {
            return java.time.ZoneOffset.UTC;
        }
        if (!zone.isTextual()) {
            throw ApiException.badRequest(at + ": " + zone + " (expected: a string, an IANA zone such as Europe/Paris or"
                    + " an offset such as +01:00)");
        }
        try {
            return java.time.ZoneId.of(zone.asText());
        } catch (java.time.DateTimeException e) {
            throw ApiException.badRequest(at + ": '" + zone.asText() + "' (expected: an IANA zone such as Europe/Paris or"
                    + " an offset such as +01:00)");
        }
    }

    /** A date histogram's offset: {@code "+6h"}, {@code "-1d"}, or a number of milliseconds. */
    private static long dateOffset(JsonNode offset, String at) throws ApiException {
        if (offset == null || offset.isNull()) {
            return 0;
        }
        if (offset.isIntegralNumber() && offset.canConvertToLong()) {
            return offset.asLong();
        }
        if (!offset.isTextual()) {
            throw ApiException.badRequest(at + ": " + offset + " (expected: a string such as \"+6h\" or \"-1d\", or"
                    + " milliseconds)");
        }
        try {
            return Aggregation.DateHistogram.parseOffset(offset.asText());
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(at + ": " + e.getMessage());
        }
    }

    private static void allow(JsonNode body, String at, String... names) throws ApiException {
        for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!List.of(names).contains(name)) {
                throw ApiException.badRequest(at + ": unknown parameter '" + name + "' (expected: "
                        + String.join(", ", names) + ")");
            }
        }
    }

    private static String field(JsonNode body, String at) throws ApiException {
        JsonNode field = body.get("field");
        if (field == null || !field.isTextual() || field.asText().isEmpty()) {
            throw ApiException.badRequest(at + ": missing field (expected: \"field\": \"name\" of a field with doc values)");
        }
        return field.asText();
    }

    private static int integer(JsonNode value, String at) throws ApiException {
        if (value == null || !value.isIntegralNumber() || !value.canConvertToInt()) {
            throw ApiException.badRequest(at + ": expected an integer");
        }
        return value.asInt();
    }

    private static Double number(JsonNode value, String at) throws ApiException {
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isNumber()) {
            throw ApiException.badRequest(at + ": expected a number");
        }
        return value.asDouble();
    }
}
