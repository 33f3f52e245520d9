package io.hedgerow.root.http;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.leaf.index.FieldSpec;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.root.DocExamples;
import io.hedgerow.root.embedded.EmbeddedCluster;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Typed fields, filters, sort and paging through the HTTP API of a real cluster (2 leaves, 4
 * partitions, 2 replicas, loopback sockets), against answers computed from the documents.
 */
@Timeout(120)
class TypedSearchHttpTest {
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int DOCS = 120;
    private static final String ADMIN = "admin-token-for-the-typed-search-test-0123456789";

    @TempDir
    static Path dataDir;

    private static EmbeddedCluster cluster;
    private static HttpClient http;
    private static final List<SourceDocument> documents = new ArrayList<>();

    @BeforeAll
    static void startCluster() throws Exception {
        Map<String, FieldSpec> fields = new LinkedHashMap<>();
        fields.put("title", FieldSpec.text(true, true));
        fields.put("body", FieldSpec.text(true, false).withLanguageField("lang"));
        fields.put("lang", FieldSpec.keyword(true));
        fields.put("date", FieldSpec.of(FieldSpec.Type.DATE, true));
        fields.put("n", FieldSpec.of(FieldSpec.Type.LONG, true));
        IndexConfig config = new IndexConfig("standard", fields, IndexConfig.UnknownFields.REJECT, List.of("title", "body"),
                "body");
        for (int i = 0; i < DOCS; i++) {
            boolean german = i % 2 == 0;
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("title", "debate " + i);
            doc.put("body", german ? (i % 4 == 0 ? "Die Verhandlung beginnt" : "Der Haushalt") : "La proposition du budget");
            doc.put("lang", german ? "de" : "fr");
            doc.put("date", LocalDate.of(2000, 1, 1).plusDays(i % 37).toString());
            doc.put("n", Integer.toString(i % 10));
            documents.add(new SourceDocument("doc-" + i, doc, i + 1));
        }
        cluster = EmbeddedCluster.builder(dataDir)
                .documents("typed", config, documents)
                .leaves(2).partitions(4).replicas(2)
                .adminToken(ADMIN)
                .http(0)
                .start();
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(REQUEST_TIMEOUT).build();
    }

    @AfterAll
    static void stopCluster() {
        if (http != null) {
            http.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    /** Documents with n <= 4 in lang de, by date descending, then id ascending. */
    private static List<String> expectedFilteredByDate() {
        return documents.stream()
                .filter(doc -> doc.value("lang").equals("de") && Long.parseLong(doc.value("n")) <= 4)
                .sorted(Comparator.comparing((SourceDocument doc) -> doc.value("date")).reversed()
                        .thenComparing(SourceDocument::id))
                .map(SourceDocument::id).toList();
    }

    @Test
    void filtersSortsAndPagesBySearchAfterToTheEnd() throws Exception {
        String filter = "{\"bool\": {\"must\": [{\"term\": {\"lang\": \"de\"}}, {\"range\": {\"n\": {\"lte\": 4}}}]}}";
        List<String> expected = expectedFilteredByDate();
        List<String> seen = new ArrayList<>();
        String after = null;
        for (int page = 0; page < 100; page++) {
            JsonNode body = post("{\"query\": \"debate\", \"filter\": " + filter + ", \"sort\": [{\"date\": \"desc\"}],"
                    + " \"size\": 7, \"track_total_hits\": true, \"stored_fields\": false, \"snippets\": false"
                    + (after == null ? "" : ", \"search_after\": " + after) + "}", 200);
            if (page == 0) {
                System.out.println("first page: " + body);
                assertThat(body.get("total_hits").get("value").asLong()).isEqualTo(expected.size());
            }
            JsonNode hits = body.get("hits");
            if (hits.isEmpty()) {
                break;
            }
            for (JsonNode hit : hits) {
                seen.add(hit.get("id").asText());
                assertThat(hit.get("score").isNull()).as("sorted by a field: not scored").isTrue();
                assertThat(hit.get("sort")).hasSize(2);
                assertThat(hit.get("sort").get(1).asText()).isEqualTo(hit.get("id").asText());
            }
            after = hits.get(hits.size() - 1).get("sort").toString();
        }
        assertThat(seen).isEqualTo(expected);
    }

    @Test
    void pagesByFromWithinTheWindowAndRefusesBeyondIt() throws Exception {
        List<String> expected = expectedFilteredByDate();
        JsonNode body = post("{\"query\": \"debate\", \"filter\": {\"bool\": {\"filter\": [{\"term\": {\"lang\": \"de\"}},"
                + " {\"range\": {\"n\": {\"lt\": 5}}}]}}, \"sort\": {\"date\": {\"order\": \"desc\"}}, \"from\": 5, \"k\": 4}", 200);
        assertThat(StreamSupport.stream(body.get("hits").spliterator(), false).map(hit -> hit.get("id").asText()).toList())
                .isEqualTo(expected.subList(5, 9));

        JsonNode refused = post("{\"query\": \"debate\", \"from\": 9999, \"k\": 2}", 400);
        assertThat(refused.get("detail").asText()).contains("from + k <= 10000").contains("search_after");
    }

    @Test
    void countsOnlyWithSizeZero() throws Exception {
        JsonNode body = post("{\"query\": \"debate\", \"size\": 0, \"track_total_hits\": true,"
                + " \"filter\": {\"range\": {\"date\": {\"gte\": \"2000-01-10\"}}}}", 200);
        long expected = documents.stream().filter(doc -> doc.value("date").compareTo("2000-01-10") >= 0).count();
        assertThat(body.get("hits")).isEmpty();
        assertThat(body.get("total_hits").get("value").asLong()).isEqualTo(expected);
    }

    @Test
    void findsStemmedFormsInTheQuerysLanguage() throws Exception {
        long withVerhandlung = documents.stream().filter(doc -> doc.value("body").contains("Verhandlung")).count();
        JsonNode german = get("/search?q=Verhandlungen&lang=de&k=100&track_total_hits=true");
        assertThat(german.get("total_hits").get("value").asLong()).isEqualTo(withVerhandlung);
        long withVerhandlungen = documents.stream().filter(doc -> doc.value("body").contains("Verhandlungen")
                || doc.value("title").contains("Verhandlungen")).count();
        JsonNode anyLanguage = get("/search?q=Verhandlungen&k=100&track_total_hits=true");
        assertThat(anyLanguage.get("total_hits").get("value").asLong())
                .as("without lang: the standard-analyzed fields, no stemming").isEqualTo(withVerhandlungen)
                .isLessThan(withVerhandlung);
        JsonNode french = get("/search?q=propositions&lang=fr&k=0&track_total_hits=true");
        assertThat(french.get("total_hits").get("value").asLong()).isEqualTo(DOCS / 2);
    }

    @Test
    void searchesEveryLanguageOrAListOfThemAndRefusesAnUnknownOneNamingTheKnown() throws Exception {
        long german = documents.stream().filter(doc -> doc.value("body").contains("Verhandlung")).count();
        long french = documents.stream().filter(doc -> doc.value("body").contains("proposition")).count();
        String query = "Verhandlungen propositions";
        for (String lang : List.of("\"*\"", "[\"de\", \"fr\"]", "\"fr,de\"", "[\"*\"]")) {
            JsonNode body = post("{\"query\": \"" + query + "\", \"lang\": " + lang + ", \"k\": 0, \"track_total_hits\": true}", 200);
            assertThat(body.get("total_hits").get("value").asLong()).as(lang).isEqualTo(german + french);
        }
        String q = URLEncoder.encode(query, UTF_8);
        assertThat(get("/search?q=" + q + "&lang=*&k=0&track_total_hits=true").get("total_hits").get("value").asLong())
                .isEqualTo(german + french);
        assertThat(get("/search?q=" + q + "&lang=de,fr&k=0&track_total_hits=true").get("total_hits").get("value").asLong())
                .isEqualTo(german + french);
        assertThat(get("/search?q=" + q + "&lang=de&k=0&track_total_hits=true").get("total_hits").get("value").asLong())
                .as("one language: its copy only").isEqualTo(german);
        assertThat(get("/search?q=" + q + "&k=0&track_total_hits=true").get("total_hits").get("value").asLong())
                .as("no language: the fields themselves, unstemmed").isZero();
        JsonNode hits = post("{\"query\": \"" + query + "\", \"lang\": \"*\", \"k\": 100}", 200).get("hits");
        assertThat(hits).hasSize((int) (german + french));

        JsonNode unknown = post("{\"query\": \"debate\", \"lang\": [\"de\", \"en\"]}", 400);
        assertThat(unknown.get("detail").asText()).contains("unknown language en").contains("languages of the index: de, fr");
        JsonNode malformed = post("{\"query\": \"debate\", \"lang\": \"de,English\"}", 400);
        assertThat(malformed.get("detail").asText()).contains("'English'");
        assertThat(post("{\"query\": \"debate\", \"lang\": [\"de\", 3]}", 400).get("detail").asText()).contains("3");
        assertThat(post("{\"query\": \"debate\", \"lang\": [\"*\", \"de\"]}", 400).get("detail").asText()).contains("'*'");
    }

    @Test
    void hitsCarryOnlyTheFieldsAskedAndAnUnknownOneIsRefused() throws Exception {
        JsonNode chosen = post("{\"query\": \"debate\", \"k\": 3, \"fields\": [\"title\", \"date\"]}", 200);
        assertThat(chosen.get("hits")).hasSize(3);
        for (JsonNode hit : chosen.get("hits")) {
            assertThat(hit.get("fields").properties()).extracting(Map.Entry::getKey).containsExactlyInAnyOrder("title", "date");
        }
        JsonNode byQueryString = get("/search?q=debate&k=3&fields=lang");
        for (JsonNode hit : byQueryString.get("hits")) {
            assertThat(hit.get("fields").properties()).extracting(Map.Entry::getKey).containsExactly("lang");
        }
        JsonNode none = post("{\"query\": \"debate\", \"k\": 3, \"fields\": []}", 200);
        for (JsonNode hit : none.get("hits")) {
            assertThat(hit.has("fields")).isFalse();
            assertThat(hit.get("id").asText()).startsWith("doc-");
        }
        JsonNode every = post("{\"query\": \"debate\", \"k\": 3}", 200);
        assertThat(every.get("hits").get(0).get("fields").properties()).extracting(Map.Entry::getKey)
                .contains("title", "date", "lang", "n");

        JsonNode refused = post("{\"query\": \"debate\", \"fields\": [\"title\", \"titel\"]}", 400);
        // As docs/http-api.md shows it: the per-language copies (body.de) are not named.
        assertThat(refused.get("detail").asText())
                .isEqualTo("fields: unknown field titel (expected: fields of the index: title, body, lang, date, n)");
    }

    @Test
    void highlightsChosenFieldsWithTheCallersTags() throws Exception {
        JsonNode body = post("{\"query\": \"verhandlung debate\", \"k\": 2, \"fields\": [], \"highlight\": {\"fields\":"
                + " {\"body\": {}, \"title\": {\"number_of_fragments\": 0}}, \"pre_tags\": [\"<mark>\"],"
                + " \"post_tags\": [\"</mark>\"]}}", 200);
        assertThat(body.get("hits")).hasSize(2);
        for (JsonNode hit : body.get("hits")) {
            JsonNode highlight = hit.get("highlight");
            assertThat(highlight.properties()).extracting(Map.Entry::getKey).containsExactly("body", "title");
            assertThat(highlight.get("body")).hasSize(1);
            assertThat(highlight.get("body").get(0).asText()).isEqualTo("Die <mark>Verhandlung</mark> beginnt");
            assertThat(highlight.get("title").get(0).asText()).matches("<mark>debate</mark> \\d+");
            // Today's snippet is still there, with its own tags.
            assertThat(hit.get("snippet").asText()).contains("<b>Verhandlung</b>");
        }
        JsonNode plain = post("{\"query\": \"verhandlung\", \"k\": 2}", 200);
        assertThat(plain.get("hits").get(0).has("highlight")).isFalse();

        JsonNode notText = post("{\"query\": \"debate\", \"highlight\": {\"fields\": {\"date\": {}, \"nope\": {}}}}", 400);
        assertThat(notText.get("detail").asText()).isEqualTo("highlight.fields: date, nope are not text fields of the index"
                + " (expected: text fields, such as title, body)");
    }

    @Test
    void aRangeOnAKeywordOrASortOnTextIsABadQuery() throws Exception {
        JsonNode range = post("{\"query\": \"debate\", \"filter\": {\"range\": {\"lang\": {\"gte\": \"a\"}}}}", 400);
        assertThat(range.get("error").asText()).isEqualTo("bad_query");
        assertThat(range.get("detail").asText()).contains("range on keyword field 'lang'");
        JsonNode sort = post("{\"query\": \"debate\", \"sort\": \"title\"}", 400);
        assertThat(sort.get("detail").asText()).contains("sort on text field 'title'");
    }

    @Test
    void answersEveryPostSearchExampleOfTheHttpApiDocAsShown() throws Exception {
        // Those with aggs ran on AggregationsHttpTest's cluster, which checks them.
        List<DocExamples.PostExample> examples = DocExamples.postSearchExamples("docs/http-api.md").stream()
                .filter(example -> !example.body().contains("\"aggs\"")).toList();
        List<String> problems = new ArrayList<>();
        for (DocExamples.PostExample example : examples) {
            // An empty cache, so the answer is a "miss" as shown, whichever test sent the search before.
            HttpResponse<String> cleared = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + cluster.httpPort() + "/admin/cache")).header("Authorization", "Bearer " + ADMIN).DELETE().build(),
                    BodyHandlers.ofString(UTF_8));
            assertThat(cleared.statusCode()).as(cleared.body()).isEqualTo(200);
            JsonNode actual = post(example.body(), example.status());
            String mismatch = DocExamples.mismatch(example.shown(), actual, "");
            if (mismatch != null) {
                problems.add("docs/http-api.md line " + example.line() + ": " + mismatch + "\nreal: " + actual);
            }
        }

        assertThat(problems).as("POST /search examples answered otherwise than docs/http-api.md shows").isEmpty();
        assertThat(examples).as("POST /search examples in docs/http-api.md").hasSizeGreaterThanOrEqualTo(4);
    }

    private static JsonNode post(String json, int status) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.httpPort() + "/search"))
                .timeout(REQUEST_TIMEOUT).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build();
        HttpResponse<String> response = http.send(request, BodyHandlers.ofString(UTF_8));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        return JSON.readTree(response.body());
    }

    private static JsonNode get(String pathAndQuery) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.httpPort()
                + pathAndQuery.replace("Verhandlungen", URLEncoder.encode("Verhandlungen", UTF_8)))).timeout(REQUEST_TIMEOUT).GET().build();
        HttpResponse<String> response = http.send(request, BodyHandlers.ofString(UTF_8));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }
}
