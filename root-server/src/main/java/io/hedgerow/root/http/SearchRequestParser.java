package io.hedgerow.root.http;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import io.hedgerow.api.HedgeMode;
import io.hedgerow.api.Highlight;
import io.hedgerow.api.QueryPriority;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SortField;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import java.io.IOException;
import io.hedgerow.leaf.index.IndexManifest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Turns {@code GET /search?q=...} parameters (read by {@link SearchParameters}) or a {@code POST
 * /search} JSON body into a {@link SearchRequest}, or an {@link ApiException} that says exactly
 * which field is wrong and what was expected. Strict on purpose: an unknown or mistyped field is an
 * error, not ignored.
 */
final class SearchRequestParser {
    static final List<String> FIELDS =
            List.of("query", "k", "size", "from", "timeout_ms", "snippets", "stored_fields", "total_hits_threshold",
                    "track_total_hits", "hedge", "hedge_after_ms", "explain", "priority", "min_coverage", "cache",
                    "routing", "lang", "filter", "sort", "search_after", "aggs", "aggregations", "fields", "highlight",
                    "allow_stale");
    private static final Pattern SOURCE_LOCATION = Pattern.compile("\\s*\\((?:start marker at )?\\[Source: [^\\]]*\\]\\)");

    private static final ObjectReader BODY_READER = strictMapper().readerFor(Body.class);

    private final long maxTimeoutMillis;
    /** The served index's fields, to refuse names it cannot have. */
    private final ServedFields served;

    /** A mapper that takes no liberties: no unknown fields, no "3" for 3, no 3 for "3". */
    static JsonMapper strictMapper() {
        JsonMapper mapper = JsonMapper.builder()
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                .build();
        mapper.coercionConfigFor(LogicalType.Textual)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        return mapper;
    }

    /** A parser that takes any field name in {@code fields} (no index to check them against). */
    SearchRequestParser(long maxTimeoutMillis) {
        this(maxTimeoutMillis, () -> null);
    }

    SearchRequestParser(long maxTimeoutMillis, Supplier<IndexManifest> index) {
        this.maxTimeoutMillis = maxTimeoutMillis;
        this.served = new ServedFields(index);
    }

    /** The JSON body of {@code POST /search}; absent fields take their defaults. */
    record Body(
            @JsonProperty("query") String query,
            @JsonProperty("k") Integer k,
            @JsonProperty("timeout_ms") Long timeoutMs,
            @JsonProperty("snippets") Boolean snippets,
            @JsonProperty("stored_fields") Boolean storedFields,
            @JsonProperty("total_hits_threshold") Integer totalHitsThreshold,
            @JsonProperty("hedge") String hedge,
            @JsonProperty("hedge_after_ms") Long hedgeAfterMs,
            @JsonProperty("explain") Boolean explain,
            @JsonProperty("priority") String priority,
            @JsonProperty("min_coverage") Double minCoverage,
            @JsonProperty("cache") Boolean cache,
            @JsonProperty("routing") String routing,
            @JsonProperty("size") Integer size,
            @JsonProperty("from") Integer from,
            @JsonProperty("track_total_hits") Boolean trackTotalHits,
            @JsonProperty("lang") JsonNode lang,
            @JsonProperty("filter") JsonNode filter,
            @JsonProperty("sort") JsonNode sort,
            @JsonProperty("search_after") JsonNode searchAfter,
            @JsonProperty("aggs") JsonNode aggs,
            @JsonProperty("aggregations") JsonNode aggregations,
            @JsonProperty("fields") JsonNode fields,
            @JsonProperty("highlight") JsonNode highlight,
            @JsonProperty("allow_stale") Boolean allowStale) {
    }

    SearchRequest fromParameters(Map<String, List<String>> query) throws ApiException {
        SearchParameters parameters = SearchParameters.of(query);
        String text = parameters.string("q");
        if (text == null) {
            throw ApiException.badRequest("missing parameter 'q' (expected: /search?q=your+query)");
        }
        String sort = parameters.string("sort");
        String fields = parameters.string("fields");
        return build(new Body(text,
                parameters.integer("k"),
                parameters.longInteger("timeout_ms"),
                parameters.bool("snippets"),
                parameters.bool("stored_fields"),
                parameters.integer("total_hits_threshold"),
                parameters.string("hedge"),
                parameters.longInteger("hedge_after_ms"),
                parameters.bool("explain"),
                parameters.string("priority"),
                parameters.number("min_coverage"),
                parameters.bool("cache"),
                parameters.string("routing"),
                parameters.integer("size"),
                parameters.integer("from"),
                parameters.bool("track_total_hits"),
                parameters.string("lang") == null ? null : TextNode.valueOf(parameters.string("lang")),
                null, null, null, null, null, null, null,
                parameters.bool("allow_stale")), sort == null ? null : SearchBodyParts.sort(sort),
                fields == null ? null : fieldsParameter(fields));
    }

    SearchRequest fromJson(ByteBuf content) throws ApiException {
        if (!content.isReadable()) {
            throw ApiException.badRequest("empty body (expected: a JSON object such as {\"query\": \"parliament\"})");
        }
        Body body;
        try {
            body = BODY_READER.readValue((java.io.InputStream) new ByteBufInputStream(content.duplicate()));
        } catch (UnrecognizedPropertyException e) {
            throw ApiException.badRequest("unknown field '" + e.getPropertyName() + "' (expected one of: "
                    + String.join(", ", FIELDS) + ")");
        } catch (JsonParseException e) {
            throw ApiException.badRequest("malformed JSON: " + withoutSourceLocation(e.getOriginalMessage())
                    + " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr());
        } catch (MismatchedInputException e) {
            throw ApiException.badRequest(describeMismatch(e));
        } catch (JacksonException e) {
            throw ApiException.badRequest("malformed JSON: " + withoutSourceLocation(e.getOriginalMessage()));
        } catch (IOException e) {
            throw ApiException.badRequest("unreadable body: " + e.getMessage());
        }
        if (body == null) {
            throw ApiException.badRequest("body is null (expected: a JSON object)");
        }
        if (body.query() == null) {
            throw ApiException.badRequest("missing field 'query' (expected: a string in Lucene query syntax)");
        }
        return build(body, body.sort() == null || body.sort().isNull() ? null : SearchBodyParts.sort(body.sort()),
                body.fields() == null || body.fields().isNull() ? null : fieldsBody(body.fields()));
    }

    private SearchRequest build(Body body, List<SortField> sort, List<String> fields) throws ApiException {
        if (body.timeoutMs() != null && (body.timeoutMs() < 1 || body.timeoutMs() > maxTimeoutMillis)) {
            throw ApiException.badRequest("timeout_ms: " + body.timeoutMs() + " (expected: 1.." + maxTimeoutMillis + ")");
        }
        SearchRequest.Builder builder = SearchRequest.builder(body.query());
        if (body.k() != null && body.size() != null) {
            throw ApiException.badRequest("both k and size (expected: one of them; size is k's Elasticsearch name)");
        }
        if (body.k() != null) {
            builder.k(body.k());
        }
        if (body.size() != null) {
            builder.k(body.size());
        }
        if (body.from() != null) {
            builder.from(body.from());
        }
        if (Boolean.TRUE.equals(body.trackTotalHits())) {
            if (body.totalHitsThreshold() != null) {
                throw ApiException.badRequest("both track_total_hits and total_hits_threshold (expected: one of them)");
            }
            builder.exactTotalHits();
        }
        if (sort != null) {
            builder.sort(sort);
        }
        if (body.filter() != null && !body.filter().isNull()) {
            builder.filter(SearchBodyParts.filter(body.filter(), "filter"));
        }
        if (body.aggs() != null && body.aggregations() != null) {
            throw ApiException.badRequest("both aggs and aggregations (expected: one of them; aggregations is aggs' long name)");
        }
        JsonNode aggs = body.aggs() != null ? body.aggs() : body.aggregations();
        if (aggs != null && !aggs.isNull()) {
            builder.aggs(AggregationsParser.parse(aggs, body.aggs() != null ? "aggs" : "aggregations"));
        }
        if (body.searchAfter() != null && !body.searchAfter().isNull()) {
            builder.searchAfter(SearchBodyParts.searchAfter(body.searchAfter()));
        }
        builder.lang(lang(body.lang()));
        if (body.timeoutMs() != null) {
            builder.timeoutMillis(body.timeoutMs());
        }
        if (body.snippets() != null) {
            builder.snippets(body.snippets());
        }
        if (body.storedFields() != null) {
            builder.storedFields(body.storedFields());
        }
        if (body.totalHitsThreshold() != null) {
            builder.totalHitsThreshold(body.totalHitsThreshold());
        }
        if (body.hedge() != null) {
            try {
                builder.hedge(HedgeMode.parse(body.hedge()));
            } catch (IllegalArgumentException e) {
                throw ApiException.badRequest(e.getMessage());
            }
        }
        if (body.hedgeAfterMs() != null) {
            if (body.hedgeAfterMs() < 1) {
                throw ApiException.badRequest("hedge_after_ms: " + body.hedgeAfterMs() + " (expected: 1.."
                        + SearchRequest.MAX_HEDGE_AFTER_MILLIS + ")");
            }
            builder.hedgeAfterMillis(body.hedgeAfterMs());
        }
        if (body.explain() != null) {
            builder.explain(body.explain());
        }
        if (body.priority() != null) {
            try {
                builder.priority(QueryPriority.parse(body.priority()));
            } catch (IllegalArgumentException e) {
                throw ApiException.badRequest(e.getMessage());
            }
        }
        if (body.minCoverage() != null) {
            if (!(body.minCoverage() > 0 && body.minCoverage() <= 1)) {
                throw ApiException.badRequest("min_coverage: " + body.minCoverage() + " (expected: > 0.0 and <= 1.0)");
            }
            builder.minCoverage(body.minCoverage());
        }
        if (body.cache() != null) {
            builder.cache(body.cache());
        }
        if (body.allowStale() != null) {
            builder.allowStale(body.allowStale());
        }
        builder.routing(body.routing());
        if (fields != null) {
            served.requireKnown(fields);
            builder.fields(fields);
        }
        if (body.highlight() != null && !body.highlight().isNull()) {
            builder.highlight(highlight(body.highlight()));
        }
        SearchRequest request;
        try {
            request = builder.build();
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        served.requireKnownLanguages(request.languages());
        return request;
    }

    /**
     * {@code lang} as the request holds it: a string ({@code "de"}, {@code "de,fr"} or {@code "*"})
     * or an array of codes ({@code ["de", "fr"]}); null for none or an empty string.
     */
    private static String lang(JsonNode node) throws ApiException {
        if (node == null || node.isNull()) {
            return null;
        }
        if (node.isTextual()) {
            return node.asText().isEmpty() ? null : node.asText();
        }
        if (node.isArray() && !node.isEmpty()) {
            List<String> codes = new ArrayList<>(node.size());
            for (JsonNode code : node) {
                if (!code.isTextual()) {
                    throw ApiException.badRequest("lang: " + code + " in " + node + " (expected: language codes as"
                            + " strings, e.g. [\"de\", \"fr\"])");
                }
                codes.add(code.asText());
            }
            return String.join(",", codes);
        }
        throw ApiException.badRequest("lang: " + node + " (expected: a language code such as \"de\", a non-empty list"
                + " such as [\"de\", \"fr\"], or \"*\" for every language)");
    }

    /** {@code fields=title,date}: names separated by commas; {@code fields=} for none. */
    private static List<String> fieldsParameter(String value) throws ApiException {
        if (value.isBlank()) {
            return List.of();
        }
        List<String> fields = new ArrayList<>();
        for (String name : value.split(",", -1)) {
            if (name.isBlank()) {
                throw ApiException.badRequest("parameter 'fields': '" + value + "' has an empty name (expected: names"
                        + " separated by commas, e.g. fields=title,date)");
            }
            fields.add(name.strip());
        }
        return checkedCount(fields);
    }

    /** {@code "fields": ["title", "date"]}; {@code []} for none. */
    private static List<String> fieldsBody(JsonNode node) throws ApiException {
        if (!node.isArray()) {
            throw ApiException.badRequest("field 'fields' must be an array of field names (e.g. [\"title\", \"date\"])");
        }
        List<String> fields = new ArrayList<>(node.size());
        for (JsonNode name : node) {
            if (!name.isTextual() || name.textValue().isBlank()) {
                throw ApiException.badRequest("fields: " + name + " (expected: a field name, a non-empty string)");
            }
            fields.add(name.textValue());
        }
        return checkedCount(fields);
    }

    private static List<String> checkedCount(List<String> fields) throws ApiException {
        if (fields.size() > SearchRequest.MAX_FIELDS) {
            throw ApiException.badRequest("fields: " + fields.size() + " names (expected: <= " + SearchRequest.MAX_FIELDS
                    + ")");
        }
        return fields;
    }

    /**
     * {@code "highlight": {"fields": {"body": {}, "title": {"number_of_fragments": 0}}, "pre_tags":
     * ["<em>"], "post_tags": ["</em>"]}}: Elasticsearch's shape, with one tag of each kind.
     */
    private Highlight highlight(JsonNode node) throws ApiException {
        if (!node.isObject()) {
            throw ApiException.badRequest("field 'highlight' must be an object (expected: {\"fields\": {\"body\": {}}})");
        }
        requireOnly(node, "highlight", List.of("fields", "pre_tags", "post_tags"));
        JsonNode fieldsNode = node.get("fields");
        if (fieldsNode == null || !fieldsNode.isObject() || fieldsNode.isEmpty()) {
            throw ApiException.badRequest("highlight.fields: " + (fieldsNode == null ? "missing" : fieldsNode.toString())
                    + " (expected: an object of 1.." + Highlight.MAX_FIELDS + " text fields, e.g. {\"body\": {}})");
        }
        if (fieldsNode.size() > Highlight.MAX_FIELDS) {
            throw ApiException.badRequest("highlight.fields: " + fieldsNode.size() + " fields (expected: 1.."
                    + Highlight.MAX_FIELDS + ")");
        }
        Map<String, Highlight.Field> fields = new java.util.LinkedHashMap<>();
        List<String> unknown = new ArrayList<>();
        for (Map.Entry<String, JsonNode> field : fieldsNode.properties()) {
            String where = "highlight.fields." + field.getKey();
            JsonNode settings = field.getValue();
            if (!settings.isObject()) {
                throw ApiException.badRequest(where + ": " + settings + " (expected: an object, {} for the defaults)");
            }
            requireOnly(settings, where, List.of("number_of_fragments", "fragment_size"));
            int fragments = intSetting(settings, "number_of_fragments", where, Highlight.Field.DEFAULT.numberOfFragments());
            int size = intSetting(settings, "fragment_size", where, Highlight.Field.DEFAULT.fragmentSize());
            if (!served.isText(field.getKey())) {
                unknown.add(field.getKey());
            }
            try {
                fields.put(field.getKey(), new Highlight.Field(fragments, size));
            } catch (IllegalArgumentException e) {
                throw ApiException.badRequest(where + "." + e.getMessage());
            }
        }
        if (!unknown.isEmpty()) {
            throw ApiException.badRequest("highlight.fields: " + String.join(", ", unknown) + (unknown.size() == 1
                    ? " is not a text field" : " are not text fields") + " of the index (expected: text fields, such as "
                    + String.join(", ", served.textFields()) + ")");
        }
        try {
            return new Highlight(fields, tag(node, "pre_tags"), tag(node, "post_tags"));
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
    }

    private static void requireOnly(JsonNode node, String where, List<String> names) throws ApiException {
        for (Map.Entry<String, JsonNode> entry : node.properties()) {
            if (!names.contains(entry.getKey())) {
                throw ApiException.badRequest(where + ": unknown setting '" + entry.getKey() + "' (expected one of: "
                        + String.join(", ", names) + ")");
            }
        }
    }

    private static int intSetting(JsonNode settings, String name, String where, int absent) throws ApiException {
        JsonNode value = settings.get(name);
        if (value == null) {
            return absent;
        }
        if (!value.isInt()) {
            throw ApiException.badRequest(where + "." + name + ": " + value + " (expected: an integer)");
        }
        return value.intValue();
    }

    /** One tag, as Elasticsearch's one-element {@code pre_tags}; null when absent (the default). */
    private static String tag(JsonNode highlight, String name) throws ApiException {
        JsonNode tags = highlight.get(name);
        if (tags == null) {
            return null;
        }
        if (!tags.isArray() || tags.size() != 1 || !tags.get(0).isTextual()) {
            throw ApiException.badRequest("highlight." + name + ": " + tags + " (expected: one tag in an array, e.g. [\"<em>\"];"
                    + " several tags are not supported)");
        }
        return tags.get(0).textValue();
    }

    /**
     * Jackson's message without its {@code (start marker at [Source: REDACTED (...); line: 1,
     * column: 1])}, which speaks of Jackson's settings rather than the client's body.
     */
    static String withoutSourceLocation(String message) {
        return SOURCE_LOCATION.matcher(message).replaceAll("");
    }

    private static String describeMismatch(MismatchedInputException e) {
        String field = e.getPath().isEmpty() ? null : e.getPath().get(e.getPath().size() - 1).getFieldName();
        if (field == null) {
            if (e.getOriginalMessage().startsWith("Trailing token")) {
                return "malformed JSON: more content after the JSON object (expected: exactly one object)";
            }
            return "body must be a JSON object (expected: {\"query\": \"...\"})";
        }
        return "field '" + field + "' must be " + expectedType(field);
    }

    private static String expectedType(String field) {
        return switch (field) {
            case "query", "hedge", "priority", "routing" -> "a string";
            case "min_coverage" -> "a number";
            case "k", "size", "from", "timeout_ms", "total_hits_threshold", "hedge_after_ms" -> "an integer";
            case "snippets", "stored_fields", "explain", "cache", "track_total_hits", "allow_stale" -> "true or false";
            default -> "of another type";
        };
    }
}
