package io.hedgerow.client;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hedgerow.api.Aggregation;
import io.hedgerow.api.Filter;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SortField;
import java.util.List;

/**
 * A {@link SearchRequest} as the JSON body of {@code POST /search}, in the field names and shapes
 * the root's parser reads (its {@code SearchRequestParser.FIELDS}, {@code SearchBodyParts} and
 * {@code AggregationsParser}).
 * Settings that mean "the cluster's default" ({@code timeoutMillis}, {@code hedgeAfterMillis} and
 * {@code minCoverage} at 0, no hedge mode, no routing) and those at their "none" value (no filter,
 * sort, search_after, lang or aggs, from 0) are left out, so the root applies its own default, as it does
 * in process. {@code track_total_hits} is not sent: it is the root's alias of the
 * {@code total_hits_threshold} this always sends.
 *
 * <p>A field added to {@link SearchRequest} is one more line here, and one more property in
 * {@code SearchRequest} of the root's {@code openapi.json}.
 */
final class SearchRequestEncoder {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private SearchRequestEncoder() {
    }

    static ObjectNode encode(SearchRequest request) {
        ObjectNode body = NODES.objectNode();
        body.put("query", request.query());
        body.put("k", request.k());
        if (request.from() > 0) {
            body.put("from", request.from());
        }
        if (request.timeoutMillis() > 0) {
            body.put("timeout_ms", request.timeoutMillis());
        }
        body.put("snippets", request.snippets());
        body.put("stored_fields", request.storedFields());
        if (request.fields() != null) {
            ArrayNode fields = body.putArray("fields");
            request.fields().forEach(fields::add);
        }
        if (request.highlight() != null) {
            ObjectNode highlight = body.putObject("highlight");
            ObjectNode fields = highlight.putObject("fields");
            request.highlight().fields().forEach((name, field) -> fields.putObject(name)
                    .put("number_of_fragments", field.numberOfFragments()).put("fragment_size", field.fragmentSize()));
            highlight.putArray("pre_tags").add(request.highlight().preTag());
            highlight.putArray("post_tags").add(request.highlight().postTag());
        }
        body.put("total_hits_threshold", request.totalHitsThreshold());
        if (request.hedge() != null) {
            body.put("hedge", request.hedge().label());
        }
        if (request.hedgeAfterMillis() > 0) {
            body.put("hedge_after_ms", request.hedgeAfterMillis());
        }
        body.put("explain", request.explain());
        body.put("priority", request.priority().label());
        if (request.minCoverage() > 0) {
            body.put("min_coverage", request.minCoverage());
        }
        body.put("cache", request.cache());
        if (request.allowStale()) {
            body.put("allow_stale", true);
        }
        if (request.routing() != null) {
            body.put("routing", request.routing());
        }
        if (request.lang() != null) {
            body.put("lang", request.lang());
        }
        if (request.filter() != null) {
            body.set("filter", filter(request.filter()));
        }
        if (request.sorted()) {
            ArrayNode sort = body.putArray("sort");
            for (SortField key : request.sort()) {
                sort.addObject().put(key.field(), key.descending() ? "desc" : "asc");
            }
        }
        if (request.searchAfter() != null) {
            ArrayNode searchAfter = body.putArray("search_after");
            for (Object value : request.searchAfter()) {
                switch (value) {
                    case null -> searchAfter.addNull();
                    case String text -> searchAfter.add(text);
                    case Boolean flag -> searchAfter.add(flag);
                    case Long number -> searchAfter.add(number);
                    case Integer number -> searchAfter.add(number);
                    case Float number -> searchAfter.add(number);
                    case Number number -> searchAfter.add(number.doubleValue());
                    // SearchRequest admits only the cases above.
                    default -> throw new IllegalArgumentException("search_after: " + value
                            + " (expected: strings, numbers, booleans or null)");
                }
            }
        }
        if (!request.aggs().isEmpty()) {
            ObjectNode aggs = body.putObject("aggs");
            request.aggs().forEach((name, agg) -> aggs.set(name, aggregation(agg)));
        }
        return body;
    }

    /** Elasticsearch's shapes, as {@code AggregationsParser} (root-server) reads them. */
    static ObjectNode aggregation(Aggregation agg) {
        ObjectNode node = NODES.objectNode();
        switch (agg) {
            case Aggregation.Terms terms -> {
                ObjectNode body = node.putObject("terms").put("field", terms.field()).put("size", terms.size())
                        .put("shard_size", terms.shardSize());
                // Defaults left out, as an older root would refuse options it does not know.
                if (terms.minDocCount() != 1) {
                    body.put("min_doc_count", terms.minDocCount());
                }
                if (terms.order() != Aggregation.TermsOrder.COUNT_DESC) {
                    body.putObject("order").put(terms.order().by(), terms.order().direction());
                }
                switch (terms.missing()) {
                    case null -> { }
                    case String text -> body.put("missing", text);
                    case Long number -> body.put("missing", number);
                    case Double number -> body.put("missing", number);
                    default -> throw new IllegalArgumentException("missing: " + terms.missing() + " (expected: String, Long or Double)");
                }
            }
            case Aggregation.Range range -> {
                ObjectNode body = node.putObject("range").put("field", range.field());
                if (range.keyed()) {
                    body.put("keyed", true);
                }
                ArrayNode ranges = body.putArray("ranges");
                for (Aggregation.RangeBucket r : range.ranges()) {
                    ObjectNode wire = ranges.addObject().put("key", r.key());
                    if (r.from() != null) {
                        wire.put("from", r.from());
                    }
                    if (r.to() != null) {
                        wire.put("to", r.to());
                    }
                }
            }
            case Aggregation.Histogram histogram -> {
                ObjectNode body = node.putObject("histogram").put("field", histogram.field())
                        .put("interval", histogram.interval());
                if (histogram.minDocCount() != 0) {
                    body.put("min_doc_count", histogram.minDocCount());
                }
                if (histogram.offset() != 0) {
                    body.put("offset", histogram.offset());
                }
                bounds(body, histogram.extendedBounds());
            }
            case Aggregation.DateHistogram dates -> {
                ObjectNode body = node.putObject("date_histogram").put("field", dates.field());
                if (dates.calendarInterval() != null) {
                    body.put("calendar_interval", dates.calendarInterval().label());
                } else {
                    body.put("fixed_interval", dates.fixedIntervalMillis() + "ms");
                }
                if (!dates.timeZone().equals(java.time.ZoneOffset.UTC)) {
                    body.put("time_zone", dates.timeZone().getId());
                }
                if (dates.offsetMillis() != 0) {
                    body.put("offset", dates.offsetMillis());
                }
                if (dates.minDocCount() != 0) {
                    body.put("min_doc_count", dates.minDocCount());
                }
                bounds(body, dates.extendedBounds());
            }
            case Aggregation.Stats stats -> {
                ObjectNode body = node.putObject("stats").put("field", stats.field());
                if (stats.missing() != null) {
                    body.put("missing", stats.missing());
                }
            }
        }
        return node;
    }

    private static void bounds(ObjectNode body, Aggregation.ExtendedBounds bounds) {
        if (bounds != null) {
            body.putObject("extended_bounds").put("min", bounds.min()).put("max", bounds.max());
        }
    }

    /** Elasticsearch's shapes, as {@code SearchBodyParts.filter} reads them. */
    static ObjectNode filter(Filter filter) {
        ObjectNode node = NODES.objectNode();
        switch (filter) {
            case Filter.Terms terms when terms.values().size() == 1 ->
                    node.putObject("term").put(terms.field(), terms.values().get(0));
            case Filter.Terms terms -> {
                ArrayNode values = node.putObject("terms").putArray(terms.field());
                terms.values().forEach(values::add);
            }
            case Filter.Range range -> {
                ObjectNode bounds = node.putObject("range").putObject(range.field());
                putIfPresent(bounds, "gte", range.gte());
                putIfPresent(bounds, "gt", range.gt());
                putIfPresent(bounds, "lte", range.lte());
                putIfPresent(bounds, "lt", range.lt());
            }
            case Filter.Exists exists -> node.putObject("exists").put("field", exists.field());
            case Filter.Bool bool -> {
                ObjectNode clauses = node.putObject("bool");
                putClauses(clauses, "must", bool.must());
                putClauses(clauses, "should", bool.should());
                putClauses(clauses, "must_not", bool.mustNot());
            }
        }
        return node;
    }

    private static void putIfPresent(ObjectNode node, String name, String value) {
        if (value != null) {
            node.put(name, value);
        }
    }

    private static void putClauses(ObjectNode bool, String name, List<Filter> filters) {
        if (!filters.isEmpty()) {
            ArrayNode clauses = bool.putArray(name);
            filters.forEach(filter -> clauses.add(filter(filter)));
        }
    }
}
