package io.hedgerow.root.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hedgerow.api.Filter;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SortField;
import io.hedgerow.api.TotalHits;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A search of {@link ClusterSearchEquivalenceTest} sent as a client of the HTTP API sends it: a
 * {@code POST /search} JSON body (numbers as JSON numbers where they read as such), and the page read
 * back from the JSON answer, sort values as JSON gives them (a whole number as a Long, a fraction as
 * a Double), which the next page sends back as {@code search_after}.
 */
final class HttpSearch {
    private static final ObjectMapper JSON = new ObjectMapper();

    private HttpSearch() {
    }

    static ClusterSearchEquivalenceTest.Page search(HttpClient http, int port, SearchRequest request, String what)
            throws Exception {
        String body = JSON.writeValueAsString(body(request));
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/search"))
                .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(what + ": " + body + " answered " + response.body()).isEqualTo(200);
        JsonNode answer = JSON.readTree(response.body());
        assertThat(answer.path("tainted").asBoolean()).as(what + ": every partition answered " + response.body()).isFalse();
        List<String> ids = new ArrayList<>();
        List<List<Object>> sortValues = new ArrayList<>();
        for (JsonNode hit : answer.path("hits")) {
            ids.add(hit.path("id").asText());
            List<Object> values = null;
            if (hit.has("sort")) {
                values = new ArrayList<>();
                for (JsonNode value : hit.get("sort")) {
                    values.add(value.isNull() ? null : value.isTextual() ? value.asText()
                            : value.isIntegralNumber() ? (Object) value.asLong() : value.asDouble());
                }
            }
            sortValues.add(values);
        }
        JsonNode total = answer.path("total_hits");
        TotalHits totalHits = new TotalHits(total.path("value").asLong(-1),
                "eq".equals(total.path("relation").asText()) ? TotalHits.Relation.EQUAL_TO
                        : TotalHits.Relation.GREATER_THAN_OR_EQUAL_TO);
        return new ClusterSearchEquivalenceTest.Page(ids, sortValues, totalHits, true);
    }

    private static ObjectNode body(SearchRequest request) {
        ObjectNode body = JSON.createObjectNode();
        body.put("query", request.query());
        body.put("size", request.k());
        if (request.from() > 0) {
            body.put("from", request.from());
        }
        body.put("track_total_hits", true);
        body.put("min_coverage", 1.0);
        body.put("timeout_ms", request.timeoutMillis());
        body.put("stored_fields", request.storedFields());
        body.put("snippets", request.snippets());
        if (request.hedge() != null) {
            body.put("hedge", request.hedge().label());
        }
        if (request.filter() != null) {
            body.set("filter", filter(request.filter()));
        }
        if (!request.sort().isEmpty()) {
            ArrayNode sort = body.putArray("sort");
            for (SortField key : request.sort()) {
                sort.addObject().put(key.field(), key.descending() ? "desc" : "asc");
            }
        }
        if (request.searchAfter() != null) {
            ArrayNode after = body.putArray("search_after");
            for (Object value : request.searchAfter()) {
                switch (value) {
                    case null -> after.addNull();
                    case Long l -> after.add(l);
                    case Double d -> after.add(d);
                    case Float f -> after.add(f);
                    default -> after.add(value.toString());
                }
            }
        }
        return body;
    }

    private static ObjectNode filter(Filter filter) {
        ObjectNode node = JSON.createObjectNode();
        switch (filter) {
            case Filter.Terms terms when terms.values().size() == 1 -> scalar(node.putObject("term"), terms.field(),
                    terms.values().getFirst());
            case Filter.Terms terms -> {
                ArrayNode values = node.putObject("terms").putArray(terms.field());
                for (String value : terms.values()) {
                    ObjectNode holder = JSON.createObjectNode();
                    scalar(holder, "v", value);
                    values.add(holder.get("v"));
                }
            }
            case Filter.Range range -> {
                ObjectNode bounds = node.putObject("range").putObject(range.field());
                scalar(bounds, "gte", range.gte());
                scalar(bounds, "gt", range.gt());
                scalar(bounds, "lte", range.lte());
                scalar(bounds, "lt", range.lt());
            }
            case Filter.Exists exists -> node.putObject("exists").put("field", exists.field());
            case Filter.Bool bool -> {
                ObjectNode b = node.putObject("bool");
                if (!bool.must().isEmpty()) {
                    bool.must().forEach(f -> b.withArray("must").add(filter(f)));
                }
                if (!bool.should().isEmpty()) {
                    bool.should().forEach(f -> b.withArray("should").add(filter(f)));
                }
                if (!bool.mustNot().isEmpty()) {
                    bool.mustNot().forEach(f -> b.withArray("must_not").add(filter(f)));
                }
            }
        }
        return node;
    }

    /** {@code text} under {@code name}: a JSON number when it is a plain one, a boolean when it is one, else a string. */
    private static void scalar(ObjectNode node, String name, String text) {
        if (text == null) {
            return;
        }
        if (text.matches("-?\\d{1,18}")) {
            node.put(name, Long.parseLong(text));
        } else if (text.matches("-?\\d+\\.\\d+")) {
            node.put(name, Double.parseDouble(text));
        } else if (text.equals("true") || text.equals("false")) {
            node.put(name, Boolean.parseBoolean(text));
        } else {
            node.put(name, text);
        }
    }
}
