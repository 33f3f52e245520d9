package io.hedgerow.root.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.hedgerow.api.Filter;
import io.hedgerow.api.SortField;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The parts of a search's JSON body that are trees rather than scalars, in Elasticsearch's shapes:
 * {@code filter} (term, terms, range, exists, bool), {@code sort} and {@code search_after}; and the
 * query-string form of a sort ({@code sort=date:desc,_score}). {@code aggs} has a parser of its own,
 * {@link AggregationsParser}. Each problem is an {@link ApiException} naming where in the body it
 * is and what was expected.
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
