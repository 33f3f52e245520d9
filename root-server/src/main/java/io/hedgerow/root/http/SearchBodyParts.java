package io.hedgerow.root.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.hedgerow.api.Aggregation;
import io.hedgerow.api.Filter;
import io.hedgerow.api.SortField;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The parts of a search's JSON body that are trees rather than scalars, in Elasticsearch's shapes:
 * {@code filter} (term, terms, range, exists, bool), {@code sort}, {@code search_after} and {@code aggs}; and the
 * query-string form of a sort ({@code sort=date:desc,_score}). Each problem is an
 * {@link ApiException} naming where in the body it is and what was expected.
 */
final class SearchBodyParts {
    private SearchBodyParts() {
    }

    static Filter filter(JsonNode node, String path) throws ApiException {
        if (node == null || !node.isObject() || node.size() != 1) {
            throw ApiException.badRequest(path + ": expected an object with one key: term, terms, range, exists or bool");
        }
        Map.Entry<String, JsonNode> only = node.fields().next();
        String kind = only.getKey();
        JsonNode body = only.getValue();
        String where = path + "." + kind;
        try {
            return switch (kind) {
                case "term" -> {
                    Map.Entry<String, JsonNode> field = single(body, where, "{\"field\": value}");
                    JsonNode value = field.getValue().isObject() && field.getValue().has("value")
                            ? field.getValue().get("value") : field.getValue();
                    yield Filter.term(field.getKey(), scalar(value, where + "." + field.getKey()));
                }
                case "terms" -> {
                    Map.Entry<String, JsonNode> field = single(body, where, "{\"field\": [values]}");
                    if (!field.getValue().isArray()) {
                        throw ApiException.badRequest(where + "." + field.getKey() + ": expected an array of values");
                    }
                    List<String> values = new ArrayList<>();
                    for (JsonNode value : field.getValue()) {
                        values.add(scalar(value, where + "." + field.getKey()));
                    }
                    yield Filter.terms(field.getKey(), values);
                }
                case "range" -> {
                    Map.Entry<String, JsonNode> field = single(body, where, "{\"field\": {\"gte\": a, \"lt\": b}}");
                    JsonNode bounds = field.getValue();
                    String at = where + "." + field.getKey();
                    if (!bounds.isObject()) {
                        throw ApiException.badRequest(at + ": expected an object of bounds (gte, gt, lte, lt)");
                    }
                    for (Iterator<String> names = bounds.fieldNames(); names.hasNext(); ) {
                        String name = names.next();
                        if (!List.of("gte", "gt", "lte", "lt").contains(name)) {
                            throw ApiException.badRequest(at + ": unknown bound '" + name + "' (expected: gte, gt, lte or lt)");
                        }
                    }
                    yield new Filter.Range(field.getKey(), bound(bounds, "gte", at), bound(bounds, "gt", at),
                            bound(bounds, "lte", at), bound(bounds, "lt", at));
                }
                case "exists" -> {
                    JsonNode field = body == null ? null : body.get("field");
                    if (field == null || !field.isTextual() || body.size() != 1) {
                        throw ApiException.badRequest(where + ": expected {\"field\": \"name\"}");
                    }
                    yield Filter.exists(field.asText());
                }
                case "bool" -> {
                    if (!body.isObject()) {
                        throw ApiException.badRequest(where + ": expected an object of must, filter, should and must_not");
                    }
                    List<Filter> must = new ArrayList<>();
                    List<Filter> should = new ArrayList<>();
                    List<Filter> mustNot = new ArrayList<>();
                    for (Iterator<Map.Entry<String, JsonNode>> it = body.fields(); it.hasNext(); ) {
                        Map.Entry<String, JsonNode> clause = it.next();
                        List<Filter> into = switch (clause.getKey()) {
                            case "must", "filter" -> must; // no scores here: a must is a filter
                            case "should" -> should;
                            case "must_not" -> mustNot;
                            default -> throw ApiException.badRequest(where + ": unknown clause '" + clause.getKey()
                                    + "' (expected: must, filter, should or must_not)");
                        };
                        String at = where + "." + clause.getKey();
                        if (clause.getValue().isArray()) {
                            int i = 0;
                            for (JsonNode element : clause.getValue()) {
                                into.add(filter(element, at + "[" + i++ + "]"));
                            }
                        } else {
                            into.add(filter(clause.getValue(), at));
                        }
                    }
                    yield new Filter.Bool(must, should, mustNot);
                }
                default -> throw ApiException.badRequest(path + ": unknown filter '" + kind
                        + "' (expected: term, terms, range, exists or bool)");
            };
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(where + ": " + e.getMessage());
        }
    }

    private static Map.Entry<String, JsonNode> single(JsonNode body, String where, String shape) throws ApiException {
        if (body == null || !body.isObject() || body.size() != 1) {
            throw ApiException.badRequest(where + ": expected " + shape);
        }
        return body.fields().next();
    }

    private static String bound(JsonNode bounds, String name, String at) throws ApiException {
        JsonNode value = bounds.get(name);
        return value == null || value.isNull() ? null : scalar(value, at + "." + name);
    }

    /** A JSON string, number or boolean as the text the leaves read by the field's type. */
    static String scalar(JsonNode value, String where) throws ApiException {
        if (value != null && (value.isTextual() || value.isNumber() || value.isBoolean())) {
            return value.asText();
        }
        throw ApiException.badRequest(where + ": expected a string, number or boolean");
    }

    /** {@code "field"}, {@code {"field": "desc"}}, {@code {"field": {"order": "desc"}}}, or an array of them. */
    static List<SortField> sort(JsonNode node) throws ApiException {
        List<SortField> keys = new ArrayList<>();
        if (node.isArray()) {
            int i = 0;
            for (JsonNode element : node) {
                keys.add(sortKey(element, "sort[" + i++ + "]"));
            }
        } else {
            keys.add(sortKey(node, "sort"));
        }
        return keys;
    }

    private static SortField sortKey(JsonNode node, String where) throws ApiException {
        if (node.isTextual()) {
            return defaultOrder(node.asText());
        }
        if (node.isObject() && node.size() == 1) {
            Map.Entry<String, JsonNode> key = node.fields().next();
            JsonNode order = key.getValue().isObject() ? key.getValue().get("order") : key.getValue();
            if (order != null && order.isTextual()) {
                return new SortField(key.getKey(), descending(order.asText(), where));
            }
        }
        throw ApiException.badRequest(where + ": expected \"field\", {\"field\": \"asc\"|\"desc\"} or"
                + " {\"field\": {\"order\": \"asc\"|\"desc\"}}");
    }

    /** The query-string form: {@code date:desc,_score,title:asc}. */
    static List<SortField> sort(String parameter) throws ApiException {
        List<SortField> keys = new ArrayList<>();
        for (String part : parameter.split(",")) {
            String key = part.strip();
            if (key.isEmpty()) {
                throw ApiException.badRequest("parameter 'sort': empty key in '" + parameter + "' (expected: field[:asc|desc],...)");
            }
            int colon = key.lastIndexOf(':');
            keys.add(colon < 0 ? defaultOrder(key)
                    : new SortField(key.substring(0, colon), descending(key.substring(colon + 1), "parameter 'sort'")));
        }
        return keys;
    }

    /** As Elasticsearch: a field ascending, the score descending. */
    private static SortField defaultOrder(String field) {
        return new SortField(field, SortField.SCORE.equals(field));
    }

    private static boolean descending(String order, String where) throws ApiException {
        return switch (order) {
            case "asc" -> false;
            case "desc" -> true;
            default -> throw ApiException.badRequest(where + ": order '" + order + "' (expected: asc or desc)");
        };
    }

    /**
     * {@code aggs}: an object of named aggregations, each an object with one key, its kind:
     * {@code terms} (field, size, shard_size, min_doc_count, order, missing), {@code range} (field,
     * ranges of from/to/key, keyed), {@code histogram} (field, interval, min_doc_count, offset,
     * extended_bounds), {@code date_histogram} (field, fixed_interval or calendar_interval,
     * time_zone, offset, min_doc_count, extended_bounds) or {@code stats} (field, missing).
     */
    static Map<String, Aggregation> aggs(JsonNode node, String path) throws ApiException {
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
                    if (minDocCount < 1) {
                        throw ApiException.badRequest(at + ".min_doc_count: " + minDocCount + " (expected: >= 1; 0, every"
                                + " value of the index whether matched or not, is not supported)");
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

    /** The last hit's sort values: strings, numbers, booleans or null. */
    static List<Object> searchAfter(JsonNode node) throws ApiException {
        if (!node.isArray()) {
            throw ApiException.badRequest("search_after: expected an array (the last hit's sort values)");
        }
        List<Object> values = new ArrayList<>();
        for (JsonNode value : node) {
            if (value.isNull()) {
                values.add(null);
            } else if (value.isTextual()) {
                values.add(value.asText());
            } else if (value.isIntegralNumber() && value.canConvertToLong()) {
                values.add(value.asLong());
            } else if (value.isNumber()) {
                values.add(value.asDouble());
            } else if (value.isBoolean()) {
                values.add(value.asBoolean());
            } else {
                throw ApiException.badRequest("search_after: " + value + " (expected: strings, numbers, booleans or null)");
            }
        }
        return values;
    }
}
