package io.hedgerow.root.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.api.SearchException;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.leaf.index.FieldSpec;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.Partitioner;
import io.hedgerow.leaf.index.Routing;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.root.TestData;
import io.hedgerow.root.write.DocumentResult;
import io.hedgerow.root.write.DocumentWriter.WriteOptions;
import io.hedgerow.root.write.DocumentWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An index with a routing key on a running cluster (real sockets, real Lucene indexes): each
 * language's documents live in two of eight partitions; a search that names a language asks only
 * those two and finds every document of it; writes are placed by their routing field and read back
 * by id with their value; an index without a routing key refuses a routing value with a 400.
 */
class RoutingTest {
    private static final List<String> LANGUAGES = List.of("de", "fr", "en", "it", "nl");
    private static final int PARTITIONS = 8;
    private static final Routing ROUTING = new Routing("lang", 2);
    private static final IndexConfig CONFIG = routedConfig();

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static IndexConfig routedConfig() {
        Map<String, FieldSpec> fields = new LinkedHashMap<>();
        fields.put("title", FieldSpec.text(true, true));
        fields.put("body", FieldSpec.text(true, false));
        fields.put("lang", FieldSpec.keyword(true));
        return new IndexConfig(null, fields, IndexConfig.UnknownFields.REJECT, List.of("title", "body"), "body", ROUTING);
    }

    /** 300 documents, each word "common" and "lang" one of the languages in turn. */
    private static List<SourceDocument> documents() {
        List<SourceDocument> documents = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            Map<String, String> fields = new LinkedHashMap<>();
            fields.put("title", "common title " + i);
            fields.put("body", "common body of document " + i);
            fields.put("lang", LANGUAGES.get(i % LANGUAGES.size()));
            documents.add(new SourceDocument("d-" + i, fields, i + 1));
        }
        return documents;
    }

    private static EmbeddedCluster start(Path data) throws Exception {
        return EmbeddedCluster.builder(data).documents("routed", CONFIG, documents())
                .leaves(2).partitions(PARTITIONS).replicas(2).http(0).start();
    }

    @Test
    void aSearchNamingALanguageAsksOnlyItsPartitionsAndFindsEveryDocumentOfIt(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = start(data)) {
            int[] german = new Partitioner(PARTITIONS, ROUTING).partitionsOf("de");

            SearchResult routed = cluster.client().search(SearchRequest.builder("lang:de").routing("de").k(100)
                    .explain(true).cache(false).build()).join();
            SearchResult everywhere = cluster.client().search(SearchRequest.builder("lang:de").k(100).cache(false)
                    .build()).join();

            assertThat(routed.totalHits().value()).isEqualTo(60).isEqualTo(everywhere.totalHits().value());
            assertThat(routed.hits()).allSatisfy(hit -> assertThat(german).contains(hit.partition()));
            // Query sub-requests name their partition; fetches (partition -1) go to the leaves holding hits.
            assertThat(routed.trace()).extracting(SubRequestTrace::partition).filteredOn(p -> p >= 0).isNotEmpty()
                    .allSatisfy(p -> assertThat(german).contains(p));
            assertThat(routed.coverage().partitionsTotal()).isEqualTo(2);
            assertThat(routed.coverage().partitionsAnswered()).isEqualTo(2);
            assertThat(routed.coverage().docsFraction()).isEqualTo(1.0);
            assertThat(everywhere.coverage().partitionsTotal()).isEqualTo(PARTITIONS);
        }
    }

    @Test
    void aWriteIsPlacedByItsRoutingFieldAndReadByIdWithItsValue(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = start(data)) {
            DocumentWriter documents = cluster.root().documents();

            DocumentResult written = documents.upsert("w-1", Map.of("title", "zanzibar", "body", "a heron",
                    "lang", "fr"), new WriteOptions(0, true)).join();
            DocumentResult noLanguage = documents.upsert("w-2", Map.of("title", "zanzibar", "body", "a heron"),
                    WriteOptions.NONE).join();

            assertThat(written.outcome()).isEqualTo(DocumentResult.Outcome.CREATED);
            assertThat(documents.partitionOf("w-1", "fr")).isIn(
                    Arrays.stream(new Partitioner(PARTITIONS, ROUTING).partitionsOf("fr")).boxed().toList());
            assertThat(noLanguage.outcome()).isEqualTo(DocumentResult.Outcome.REJECTED);
            assertThat(noLanguage.error()).contains("routing value").contains("'lang'");
            assertThat(documents.get("w-1", "fr").join().fields()).containsEntry("title", "zanzibar");
            assertThat(documents.get("w-1").join().outcome()).isEqualTo(DocumentResult.Outcome.REJECTED);
            SearchResult found = cluster.client().search(SearchRequest.builder("zanzibar").routing("fr").cache(false)
                    .build()).join();
            assertThat(found.hits()).extracting(h -> h.id()).containsExactly("w-1");

            HttpResponse<String> withoutValue = send(cluster, "GET", "/documents/w-1");
            assertThat(withoutValue.statusCode()).isEqualTo(400);
            assertThat(withoutValue.body()).contains("routing");
            assertThat(send(cluster, "GET", "/documents/w-1?routing=fr").statusCode()).isEqualTo(200);
            assertThat(send(cluster, "DELETE", "/documents/w-1?routing=fr&refresh=wait_for").statusCode()).isEqualTo(200);
            assertThat(send(cluster, "GET", "/documents/w-1?routing=fr").statusCode()).isEqualTo(404);
        }
    }

    @Test
    void anIndexWithoutARoutingKeyRefusesARoutingValue(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder(data)
                .documents("plain", IndexConfig.defaults(), TestData.documents(3, 50))
                .leaves(1).partitions(2).replicas(1).http(0).start()) {
            HttpResponse<String> answer = send(cluster, "GET", "/search?q=alpha&routing=de");

            assertThat(answer.statusCode()).isEqualTo(400);
            assertThat(answer.body()).contains("\"error\":\"bad_query\"").contains("has no routing key");
            assertThatThrownBy(() -> cluster.client().search(SearchRequest.builder("alpha").routing("de").build()).join())
                    .isInstanceOf(CompletionException.class).cause().isInstanceOf(SearchException.class);
        }
    }

    private HttpResponse<String> send(EmbeddedCluster cluster, String method, String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.httpPort() + path))
                .timeout(Duration.ofSeconds(20)).method(method, HttpRequest.BodyPublishers.noBody()).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
