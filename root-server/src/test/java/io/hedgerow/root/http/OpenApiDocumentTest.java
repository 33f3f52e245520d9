package io.hedgerow.root.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.leaf.index.FieldSpec;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.root.TestData;
import io.hedgerow.root.embedded.EmbeddedCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * {@code /openapi.json} against a real root (real leaves on loopback, a real index, fault
 * injection, an admin and a write token): for every route and method the document names, real
 * requests are sent and each answer is checked against the schema the document gives for its
 * status and content type: every required field present, no field the document does not name.
 * Then the other way round: every route the root serves is in the document, and every property
 * the document describes was seen in some answer (but the few, named below, that only a failing
 * or busy cluster writes).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(180)
class OpenApiDocumentTest {
    private static final String ADMIN = "admin-token-for-the-openapi-test-0123456789";
    private static final String WRITE = "write-token-for-the-openapi-test-0123456789";
    /** Request bodies: the document describes them, but answers never carry them. */
    private static final Set<String> REQUEST_SCHEMAS =
            Set.of("SearchRequest", "Filter", "SortKey", "DelayRequest", "StallRequest", "Document");
    /**
     * Properties only a cluster in trouble writes (a leaf on probation, in slow start, refused,
     * supervised or failing; under-replicated partitions, copies being made; a blocklisted query;
     * a replica out of sync; a partition that failed on a leaf rather than having none to ask; a
     * blocklist entry removed; a rolling restart or a leaf restart that succeeded, which needs a
     * local cluster; a degraded result: a fetch of stored fields that failed, or a stale replica
     * answering as the last resort, which SearchResultJsonTest and SearchRunStaleCopyTest produce).
     * Each is written by code next to a property that is checked.
     */
    private static final Set<String> RARE = Set.of(
            "Cluster/properties/leaves/items/properties/probation",
            "Cluster/properties/leaves/items/properties/probation/properties/reason",
            "Cluster/properties/leaves/items/properties/probation/properties/since",
            "Cluster/properties/leaves/items/properties/probation/properties/since_ms_ago",
            "Cluster/properties/leaves/items/properties/slow_start_share",
            "Cluster/properties/leaves/items/properties/refused",
            "Cluster/properties/leaves/items/properties/process",
            "Cluster/properties/leaves/items/properties/process/properties/state",
            "Cluster/properties/leaves/items/properties/process/properties/restarts",
            "Cluster/properties/leaves/items/properties/process/properties/detail",
            "Cluster/properties/placement/properties/under_replicated",
            "Cluster/properties/placement/properties/under_replicated_ms_ago",
            "Cluster/properties/placement/properties/last_time_to_full_replication_ms",
            "Cluster/properties/placement/properties/copies/items/properties/partition",
            "Cluster/properties/placement/properties/copies/items/properties/leaf",
            "Cluster/properties/placement/properties/copies/items/properties/reason",
            "Cluster/properties/placement/properties/copies/items/properties/state",
            "Cluster/properties/placement/properties/copies/items/properties/why",
            "Cluster/properties/placement/properties/copies/items/properties/started",
            "Cluster/properties/placement/properties/copies/items/properties/started_ms_ago",
            "Cluster/properties/placement/properties/copies/items/properties/since",
            "Cluster/properties/placement/properties/copies/items/properties/since_ms_ago",
            "Cluster/properties/placement/properties/recent/items/properties/partition",
            "Cluster/properties/placement/properties/recent/items/properties/leaf",
            "Cluster/properties/placement/properties/recent/items/properties/reason",
            "Cluster/properties/placement/properties/recent/items/properties/outcome",
            "Cluster/properties/placement/properties/recent/items/properties/why",
            "Cluster/properties/placement/properties/recent/items/properties/took_ms",
            "Cluster/properties/placement/properties/recent/items/properties/ended",
            "Cluster/properties/placement/properties/recent/items/properties/ended_ms_ago",
            "WriteReplica/properties/problem",
            "LeafTrace/properties/reason",
            "Blocklist/properties/entries/items/properties/id",
            "Blocklist/properties/entries/items/properties/query",
            "Blocklist/properties/entries/items/properties/reason",
            "Blocklist/properties/entries/items/properties/detail",
            "Blocklist/properties/entries/items/properties/age_ms",
            "Blocklist/properties/entries/items/properties/expires_in_ms",
            "BulkItem/properties/fields",
            "PartitionError/properties/leaf",
            "Removed/properties/id",
            "Removed/properties/result",
            "RestartResult/properties/leaf",
            "RestartResult/properties/result",
            "Coverage/properties/degraded");

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final ObjectMapper json = new ObjectMapper();
    private final Set<String> exercised = new TreeSet<>();
    private final List<String> problems = new ArrayList<>();
    private EmbeddedCluster cluster;
    private EmbeddedCluster failing;
    /** Typed fields (a language copy, a date, a long, a multi-valued keyword): sorted, filtered and faceted searches. */
    private EmbeddedCluster typed;
    private JsonNode document;
    private SchemaSubsetValidator validator;

    @BeforeAll
    void start() throws Exception {
        cluster = EmbeddedCluster.builder(Files.createTempDirectory("openapi"))
                .documents("openapi", IndexConfig.defaults(), TestData.documents(13, 300))
                .leaves(2).partitions(4).replicas(2).faultInjection(true).adminToken(ADMIN).writeToken(WRITE).http(0)
                .start();
        // One replica per partition, and one of its two leaves stopped: a tainted result with errors.
        failing = EmbeddedCluster.builder(Files.createTempDirectory("openapi-failing"))
                .documents("failing", IndexConfig.defaults(), TestData.documents(17, 100))
                .leaves(2).partitions(4).replicas(1).http(0).start();
        failing.leaves().get(1).close();
        typed = EmbeddedCluster.builder(Files.createTempDirectory("openapi-typed"))
                .documents("typed", typedConfig(), typedDocuments()).leaves(2).partitions(4).replicas(1).http(0).start();
        HttpResponse<String> served = http.send(HttpRequest.newBuilder(uri(cluster, "/openapi.json")).build(),
                HttpResponse.BodyHandlers.ofString());
        document = json.readTree(served.body());
        validator = new SchemaSubsetValidator(document);
    }

    @AfterAll
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
        if (failing != null) {
            failing.close();
        }
        if (typed != null) {
            typed.close();
        }
    }

    private static IndexConfig typedConfig() {
        Map<String, FieldSpec> fields = new LinkedHashMap<>();
        fields.put("title", FieldSpec.text(true, true));
        fields.put("body", FieldSpec.text(true, false).withLanguageField("lang"));
        fields.put("lang", FieldSpec.keyword(true));
        fields.put("date", FieldSpec.of(FieldSpec.Type.DATE, true));
        fields.put("n", FieldSpec.of(FieldSpec.Type.LONG, true));
        fields.put("tags", FieldSpec.keyword(true));
        return new IndexConfig("standard", fields, IndexConfig.UnknownFields.REJECT, List.of("title", "body"), "body");
    }

    /** Odd documents in French, even ones in German; every third has one tag, the others two. */
    private static List<SourceDocument> typedDocuments() {
        List<SourceDocument> documents = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            boolean german = i % 2 == 0;
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("title", "debate " + i);
            doc.put("body", german ? "Die Verhandlung beginnt" : "La proposition du budget");
            doc.put("lang", german ? "de" : "fr");
            doc.put("date", LocalDate.of(2000, 1, 1).plusDays(i % 17).toString());
            doc.put("n", Integer.toString(i % 10));
            doc.put("tags", i % 3 == 0 ? "red" : List.of("blue", i % 2 == 0 ? "green" : "amber"));
            documents.add(new SourceDocument("t-" + i, doc, i + 1));
        }
        return documents;
    }

    @Test
    void theServedDocumentIsTheCheckedInOneAndOpenApi31() throws Exception {
        JsonNode resource = json.readTree(OpenApiRoutes.class.getResourceAsStream(OpenApiRoutes.RESOURCE));

        assertThat(document).isEqualTo(resource);
        assertThat(document.path("openapi").asText()).isEqualTo("3.1.0");
        assertThat(document.path("paths").size()).isGreaterThan(10);
    }

    @Test
    void everyAnswerOfEveryDocumentedRouteMatchesItsSchema() throws Exception {
        exchange("GET", "/search", "/search?q=alpha&explain=true&cache=false", null, null, 200);
        exchange("GET", "/search", "/search?q=alpha+bravo", null, null, 200);
        exchange("GET", "/search", "/search?q=alpha+bravo", null, null, 200);
        exchange("GET", "/search", "/search?q=title:(alpha", null, null, 400);
        exchange("GET", "/search", "/search?q=alpha&nope=1", null, null, 400);
        exchange("POST", "/search", "/search", "{\"query\": \"bravo charlie\", \"k\": 3, \"snippets\": false,"
                + " \"hedge\": \"tied\", \"priority\": \"batch\", \"total_hits_threshold\": 1}", null, 200);
        exchange("POST", "/search", "/search", "{\"query\": \"alpha\", \"k\": 2, \"fields\": [],"
                + " \"highlight\": {\"fields\": {\"title\": {\"number_of_fragments\": 0}}}}", null, 200);
        exchange("POST", "/search", "/search", "{\"query\": \"bravo\", \"k\": \"3\"}", null, 400);
        // Aggregations (their every kind is checked against the document by AggregationsHttpTest).
        exchange("POST", "/search", "/search", "{\"query\": \"alpha\", \"k\": 0, \"aggs\": {\"ids\": {\"terms\":"
                + " {\"field\": \"id\", \"size\": 2}}}}", null, 200);
        exchange("POST", "/search", "/search", "{\"query\": \"alpha\", \"aggs\": {\"x\": {\"stats\": {\"field\":"
                + " \"title\"}}}}", null, 400);
        // Sorted, filtered, paged, count-only, language and faceted searches, on typed fields.
        JsonNode sorted = exchangeWith(typed, "POST", "/search", "/search", "{\"query\": \"debate\", \"filter\": {\"bool\":"
                + " {\"must\": [{\"term\": {\"lang\": \"de\"}}, {\"range\": {\"n\": {\"gte\": 1, \"lte\": 8}}}],"
                + " \"should\": {\"terms\": {\"tags\": [\"red\", \"green\"]}}, \"must_not\": [{\"term\": {\"n\":"
                + " {\"value\": 5}}}], \"filter\": {\"exists\": {\"field\": \"date\"}}}}, \"sort\": [{\"date\":"
                + " \"desc\"}, {\"n\": {\"order\": \"asc\"}}, \"_score\"], \"size\": 3, \"track_total_hits\": true}",
                null, 200);
        JsonNode last = sorted.path("hits").path(sorted.path("hits").size() - 1).path("sort");
        assertThat(last.isArray()).as("a sorted page's last hit carries its sort values: " + sorted).isTrue();
        exchangeWith(typed, "POST", "/search", "/search", "{\"query\": \"debate\", \"filter\": {\"term\": {\"lang\":"
                + " \"de\"}}, \"sort\": [{\"date\": \"desc\"}, {\"n\": {\"order\": \"asc\"}}, \"_score\"], \"size\": 3,"
                + " \"search_after\": " + last + "}", null, 200);
        exchangeWith(typed, "POST", "/search", "/search", "{\"query\": \"debate\", \"sort\": \"n\", \"from\": 5,"
                + " \"k\": 4, \"fields\": [\"title\", \"tags\"], \"filter\": {\"range\": {\"date\": {\"gt\":"
                + " \"2000-01-03\", \"lt\": null}}}}", null, 200);
        exchangeWith(typed, "POST", "/search", "/search", "{\"query\": \"debate\", \"size\": 0, \"track_total_hits\":"
                + " true, \"aggs\": {\"tags\": {\"terms\": {\"field\": \"tags\", \"size\": 5}}, \"n\": {\"stats\":"
                + " {\"field\": \"n\"}}, \"days\": {\"date_histogram\": {\"field\": \"date\", \"calendar_interval\":"
                + " \"week\"}}}}", null, 200);
        exchangeWith(typed, "POST", "/search", "/search", "{\"query\": \"Verhandlungen\", \"lang\": \"de\", \"k\": 2}",
                null, 200);
        exchangeWith(typed, "GET", "/search", "/search?q=debate&sort=date:desc,_score&from=2&size=3&lang=de", null, null, 200);
        // Every language, a list of them, and one the index has not.
        JsonNode everyLanguage = exchangeWith(typed, "POST", "/search", "/search",
                "{\"query\": \"Verhandlungen propositions\", \"lang\": \"*\", \"k\": 4}", null, 200);
        assertThat(everyLanguage.path("hits").size()).as("lang * finds hits: " + everyLanguage).isPositive();
        exchangeWith(typed, "POST", "/search", "/search", "{\"query\": \"Verhandlungen\", \"lang\": [\"fr\", \"de\"],"
                + " \"k\": 2}", null, 200);
        exchangeWith(typed, "GET", "/search", "/search?q=propositions&lang=de,fr&k=2", null, null, 200);
        exchangeWith(typed, "GET", "/search", "/search?q=propositions&lang=*&k=2", null, null, 200);
        exchangeWith(typed, "POST", "/search", "/search", "{\"query\": \"debate\", \"lang\": [\"de\", \"xx\"]}",
                null, 400);
        exchangeWith(typed, "GET", "/search", "/search?q=debate&k=0&track_total_hits=true", null, null, 200);
        exchangeWith(failing, "GET", "/search", "/search?q=alpha&cache=false", null, null, 200);
        exchangeWith(failing, "GET", "/cluster", "/cluster", null, null, 200);
        exchangeWith(failing, "GET", "/health", "/health", null, null, 200);

        exchange("GET", "/health", "/health", null, null, 200);
        exchange("GET", "/ready", "/ready", null, null, 200);
        exchange("GET", "/cluster", "/cluster", null, null, 200);
        exchange("GET", "/metrics", "/metrics", null, null, 200);
        exchange("GET", "/metrics/latency", "/metrics/latency", null, null, 200);
        exchange("GET", "/metrics/leaves", "/metrics/leaves", null, null, 200);
        exchange("GET", "/metrics/summary", "/metrics/summary", null, null, 200);
        exchange("GET", "/openapi.json", "/openapi.json", null, null, 200);
        exchange("GET", "/", "/", null, null, 200);
        exchange("GET", "/console/{asset}", "/console/console.js", null, null, 200);
        exchange("GET", "/console/{asset}", "/console/no-such.js", null, null, 404);

        exchange("GET", "/admin/blocklist", "/admin/blocklist", null, ADMIN, 200);
        exchange("GET", "/admin/blocklist", "/admin/blocklist", null, null, 401);
        exchange("DELETE", "/admin/blocklist", "/admin/blocklist", null, ADMIN, 200);
        exchange("DELETE", "/admin/blocklist/{id}", "/admin/blocklist/no-such-entry", null, ADMIN, 404);
        exchange("GET", "/admin/cache", "/admin/cache", null, ADMIN, 200);
        exchange("DELETE", "/admin/cache", "/admin/cache", null, ADMIN, 200);
        exchange("POST", "/admin/leaves/{n}/delay", "/admin/leaves/0/delay", "{\"delay_ms\": 1, \"duration_ms\": 1000}", ADMIN, 200);
        exchange("DELETE", "/admin/leaves/{n}/delay", "/admin/leaves/0/delay", null, ADMIN, 200);
        exchange("POST", "/admin/leaves/{n}/delay", "/admin/leaves/0/delay", "{\"delay\": 1}", ADMIN, 400);
        exchange("POST", "/admin/leaves/{n}/stall", "/admin/leaves/1/stall",
                "{\"stall_ms\": 1, \"every_ms\": 100, \"duration_ms\": 1000}", ADMIN, 200);
        exchange("DELETE", "/admin/leaves/{n}/stall", "/admin/leaves/1/stall", null, ADMIN, 200);
        exchange("POST", "/admin/leaves/{n}/restart", "/admin/leaves/0/restart", null, ADMIN, 501);
        exchange("POST", "/admin/leaves/restart", "/admin/leaves/restart?rolling=true", null, ADMIN, 501);
        exchange("POST", "/admin/leaves/restart", "/admin/leaves/restart?rolling=false", null, ADMIN, 400);

        exchange("PUT", "/documents/{id}", "/documents/w-1?refresh=wait_for", "{\"title\": \"okapi\", \"body\": \"an okapi\"}",
                WRITE, 201);
        exchange("PUT", "/documents/{id}", "/documents/w-1", "{\"title\": \"okapi\", \"body\": \"another\"}", WRITE, 200);
        exchange("PUT", "/documents/{id}", "/documents/w-1?if_version=999", "{\"title\": \"t\", \"body\": \"b\"}", WRITE, 409);
        exchange("PUT", "/documents/{id}", "/documents/w-1", "[1, 2]", WRITE, 400);
        exchange("PUT", "/documents/{id}", "/documents/w-1", "{\"title\": \"t\"}", null, 401);
        exchange("GET", "/documents/{id}", "/documents/w-1", null, null, 200);
        exchange("DELETE", "/documents/{id}", "/documents/w-1?refresh=wait_for", null, WRITE, 200);
        exchange("DELETE", "/documents/{id}", "/documents/w-1", null, WRITE, 404);
        exchange("GET", "/documents/{id}", "/documents/w-1", null, null, 404);
        exchange("POST", "/documents", "/documents?refresh=wait_for",
                "{\"id\": \"b-1\", \"title\": \"okapi\", \"body\": \"b\"}\n{not json\n", WRITE, 200);
        exchange("POST", "/_bulk", "/_bulk?refresh=wait_for",
                "{\"index\": {\"_id\": \"e-1\"}}\n{\"title\": \"okapi\", \"body\": \"e\"}\n", WRITE, 200);
        exchange("POST", "/_bulk", "/_bulk", "{not json\n", WRITE, 400);
        exchange("POST", "/_bulk", "/_bulk", "{\"delete\": {\"_id\": \"e-1\"}}\n", null, 401);

        assertThat(problems).as("answers that do not match the document").isEmpty();
        assertThat(exercised).as("every route and method the document names was sent a real request")
                .containsExactlyInAnyOrderElementsOf(documentedOperations());
        Set<String> unseen = new TreeSet<>(validator.documentedProperties(REQUEST_SCHEMAS));
        unseen.removeAll(validator.seen());
        unseen.removeIf(pointer -> RARE.contains(pointer.substring("#/components/schemas/".length())));
        assertThat(unseen).as("documented properties no answer carried").isEmpty();
    }

    @Test
    void everyPathTheRootServesIsDocumented() throws Exception {
        HttpResponse<String> notFound = http.send(HttpRequest.newBuilder(uri(cluster, "/no/such/path")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(notFound.statusCode()).isEqualTo(404);
        assertThat(validator.validate(json.readTree(notFound.body()), document.at("/components/schemas/Error"),
                "#/components/schemas/Error")).isEmpty();
        Matcher served = Pattern.compile("\\(expected: (.*)\\)$").matcher(json.readTree(notFound.body()).path("detail").asText());
        assertThat(served.find()).isTrue();
        List<String> paths = Arrays.stream(served.group(1).split(",| or ")).map(String::trim).filter(p -> !p.isEmpty())
                .map(p -> p.replace("/...", "/restart")).toList();

        assertThat(paths).contains("/search", "/documents", "/openapi.json");
        Set<String> documented = new TreeSet<>();
        document.path("paths").fieldNames().forEachRemaining(documented::add);
        assertThat(documented).containsAll(paths);
    }

    private void exchange(String method, String template, String path, String body, String token, int status) throws Exception {
        exchangeWith(cluster, method, template, path, body, token, status);
    }

    /**
     * Sends one request and checks its answer against the document (and, when it is meant to
     * succeed, the request too: a search body against {@code SearchRequest}, a search's URL
     * parameters against those documented); returns the answer's body, or a missing node.
     */
    private JsonNode exchangeWith(EmbeddedCluster root, String method, String template, String path, String body, String token,
            int status) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(root, path)).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        String what = method + " " + path + " -> " + response.statusCode();
        exercised.add(method + " " + template);
        if (status < 300) {
            checkRequest(method, template, path, body);
        }
        if (response.statusCode() != status) {
            problems.add(what + " (expected: " + status + "): " + response.body());
            return json.missingNode();
        }
        JsonNode answer = document.path("paths").path(template).path(method.toLowerCase()).path("responses")
                .path(String.valueOf(status));
        if (answer.isMissingNode()) {
            problems.add(what + ": status not documented for " + method + " " + template);
            return json.missingNode();
        }
        String type = response.headers().firstValue("Content-Type").orElse("");
        Map.Entry<String, JsonNode> content = null;
        for (Map.Entry<String, JsonNode> documented : answer.path("content").properties()) {
            if (type.startsWith(documented.getKey())) {
                content = documented;
            }
        }
        if (content == null) {
            problems.add(what + ": content type " + type + " not documented (documented: " + answer.path("content") + ")");
            return json.missingNode();
        }
        if (!content.getKey().equals("application/json")) {
            return json.missingNode(); // text: its type is all the document says
        }
        String pointer = "#/paths/" + template.replace("~", "~0").replace("/", "~1") + "/" + method.toLowerCase()
                + "/responses/" + status + "/content/application~1json/schema";
        JsonNode answerBody = json.readTree(response.body());
        for (String problem : validator.validate(answerBody, content.getValue().path("schema"), pointer)) {
            problems.add(what + ": " + problem);
        }
        return answerBody;
    }

    /** A request meant to succeed: its JSON body matches the documented request body, its parameters are documented. */
    private void checkRequest(String method, String template, String path, String body) throws Exception {
        JsonNode operation = document.path("paths").path(template).path(method.toLowerCase());
        JsonNode schema = operation.path("requestBody").path("content").path("application/json").path("schema");
        // A body documented as a string (JSON lines) is text to the document: nothing more to check.
        if (body != null && !schema.isMissingNode() && !schema.path("type").asText().equals("string")) {
            String pointer = "#/paths/" + template.replace("~", "~0").replace("/", "~1") + "/" + method.toLowerCase()
                    + "/requestBody/content/application~1json/schema";
            for (String problem : validator.validate(json.readTree(body), schema, pointer)) {
                problems.add(method + " " + path + " request body: " + problem);
            }
        }
        int query = path.indexOf('?');
        if (query < 0) {
            return;
        }
        Set<String> documented = new TreeSet<>();
        for (JsonNode parameter : operation.path("parameters")) {
            documented.add(parameter.path("name").asText());
        }
        for (String pair : path.substring(query + 1).split("&")) {
            String name = pair.split("=", 2)[0];
            if (!documented.contains(name)) {
                problems.add(method + " " + path + ": parameter '" + name + "' undocumented (documented: " + documented + ")");
            }
        }
    }

    private List<String> documentedOperations() {
        List<String> operations = new ArrayList<>();
        for (Map.Entry<String, JsonNode> path : document.path("paths").properties()) {
            for (String method : List.of("get", "put", "post", "delete", "patch", "head")) {
                if (path.getValue().has(method)) {
                    operations.add(method.toUpperCase() + " " + path.getKey());
                }
            }
        }
        return operations;
    }

    private static URI uri(EmbeddedCluster root, String path) {
        return URI.create("http://127.0.0.1:" + root.httpPort() + path);
    }
}
