package io.hedgerow.root.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.Hit;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.server.LeafConfig;
import io.hedgerow.leaf.server.LeafServer;
import io.hedgerow.root.RootServer;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Live ingestion on a running cluster over real sockets and real Lucene indexes: two leaves, every
 * partition on both. Writes through HTTP and the Java API become searchable, replace, delete; a bulk
 * body's bad line fails alone; a replica that was down while writes were acknowledged catches up
 * from the primary's log and then serves every one of them by itself; a root closed in the middle of
 * a stream answers every write (acknowledged or unavailable), and another root reads every
 * acknowledged one.
 */
class LiveIngestionTest {
    /** Bounds only a cluster that never gets there; the visibility bound itself is measured in the benchmark. */
    private static final Duration PATIENCE = Duration.ofSeconds(20);
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static EmbeddedCluster start(Path data) throws Exception {
        return EmbeddedCluster.builder(data)
                .documents("live", IndexConfig.defaults(), TestData.documents(3, 200))
                .leaves(2).partitions(4).replicas(2).http(0)
                .start();
    }

    @Test
    void aBulkWriteIsSearchableAnUpdateReplacesItAndADeleteRemovesIt(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = start(data)) {
            String bulk = """
                    {"id": "w-1", "title": "zanzibar", "body": "a zanzibar heron"}
                    {"title": "no id here"}
                    {"id": "w-2", "title": "zanzibar", "body": {"n": 7}}
                    {"id": "w-3", "title": "zanzibar too", "body": "a second zanzibar heron"}
                    """;
            HttpResponse<String> answer = send("POST", cluster, "/documents?refresh=wait_for", bulk);

            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(answer.body()).contains("\"errors\":true")
                    .contains("{\"line\":1,\"id\":\"w-1\",\"result\":\"created\",\"status\":201,\"version\":")
                    .contains("{\"line\":2,\"status\":400,\"error\":\"missing 'id' (expected: a non-empty string or an integer)\"}")
                    .contains("{\"line\":3,\"status\":400,\"error\":\"field 'body' must be a string, number, boolean or an array of them, got object\"}")
                    .contains("{\"line\":4,\"id\":\"w-3\",\"result\":\"created\",\"status\":201,\"version\":");
            assertThat(ids(search(cluster, "zanzibar"))).containsExactlyInAnyOrder("w-1", "w-3");

            HttpResponse<String> updated = send("PUT", cluster, "/documents/w-1?refresh=wait_for",
                    "{\"title\": \"mombasa\", \"body\": \"a mombasa egret\"}");
            assertThat(updated.statusCode()).isEqualTo(200);
            assertThat(updated.body()).contains("\"result\":\"updated\"");
            assertThat(ids(search(cluster, "zanzibar"))).containsExactly("w-3");
            assertThat(ids(search(cluster, "mombasa"))).containsExactly("w-1");

            HttpResponse<String> conflict = send("DELETE", cluster, "/documents/w-1?if_version=999", null);
            assertThat(conflict.statusCode()).isEqualTo(409);
            HttpResponse<String> deleted = send("DELETE", cluster, "/documents/w-1?refresh=wait_for", null);
            assertThat(deleted.statusCode()).isEqualTo(200);
            assertThat(deleted.body()).contains("\"result\":\"deleted\"");
            assertThat(ids(search(cluster, "mombasa"))).isEmpty();
            assertThat(send("GET", cluster, "/documents/w-1", null).statusCode()).isEqualTo(404);
            HttpResponse<String> read = send("GET", cluster, "/documents/w-3", null);
            assertThat(read.statusCode()).isEqualTo(200);
            assertThat(read.body()).contains("\"body\":\"a second zanzibar heron\"");
        }
    }

    @Test
    void aWriteWithoutWaitingBecomesSearchableByItselfAndIsReadableByIdAtOnce(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = start(data)) {
            DocumentWriter documents = cluster.root().documents();

            DocumentResult written = documents.upsert("w-9", Map.of("title", "kalahari", "body", "a kalahari lark"),
                    WriteOptions.NONE).join();

            assertThat(written.outcome()).isEqualTo(DocumentResult.Outcome.CREATED);
            assertThat(documents.get("w-9").join().fields()).containsEntry("title", "kalahari");
            long deadline = System.nanoTime() + PATIENCE.toNanos();
            while (ids(search(cluster, "kalahari")).isEmpty()) {
                assertThat(System.nanoTime() - deadline).as("searchable by the refresh alone").isNegative();
                Thread.sleep(20);
            }
        }
    }

    @Test
    void aReplicaThatWasDownCatchesUpAndThenServesEveryAcknowledgedDocumentAlone(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = start(data)) {
            DocumentWriter documents = cluster.root().documents();
            LeafServer second = cluster.leaves().get(1);
            int port = second.port();
            second.close();

            List<CompletableFuture<DocumentResult>> writes = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                writes.add(documents.upsert("late-" + i, Map.of("title", "serengeti " + i, "body", "serengeti"),
                        WriteOptions.NONE));
            }
            assertThat(writes).allSatisfy(w -> assertThat(w.join().outcome()).isEqualTo(DocumentResult.Outcome.CREATED));
            assertThat(IntStream.range(0, 4).map(documents::inSyncReplicas).boxed().toList())
                    .as("the stopped replica left every partition's in-sync set").containsOnly(1);

            try (LeafServer restarted = LeafServer.start(LeafConfig.defaults(cluster.index().dir()).withPort(port))) {
                long deadline = System.nanoTime() + PATIENCE.toNanos();
                while (IntStream.range(0, 4).map(documents::inSyncReplicas).anyMatch(n -> n < 2)) {
                    assertThat(System.nanoTime() - deadline).as("caught up from the primary's log").isNegative();
                    Thread.sleep(20);
                }
                cluster.leaves().get(0).close();

                SearchResult alone = waitForSearch(cluster, "serengeti", 40);
                assertThat(alone.tainted()).isFalse();
                assertThat(ids(alone)).hasSize(40);
            }
        }
    }

    @Test
    void aRootClosedMidStreamLosesNoAcknowledgedWriteAndAnswersEveryOther(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = start(data)) {
            RootServer first = RootServer.start(cluster.root().cluster().config(), null, 0, PATIENCE);
            List<CompletableFuture<DocumentResult>> writes = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                writes.add(first.documents().upsert("mid-" + i, Map.of("title", "namib " + i, "body", "namib"),
                        WriteOptions.NONE));
                if (i == 200) {
                    writes.subList(0, 101).forEach(CompletableFuture::join);
                    first.close();
                }
            }
            List<String> acknowledged = new ArrayList<>();
            for (CompletableFuture<DocumentResult> write : writes) {
                DocumentResult result = write.get(PATIENCE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
                assertThat(result.outcome()).as(result.id()).isIn(DocumentResult.Outcome.CREATED,
                        DocumentResult.Outcome.UNAVAILABLE);
                if (result.outcome().succeeded()) {
                    acknowledged.add(result.id());
                }
            }
            assertThat(acknowledged).as("written before the root closed").hasSizeGreaterThanOrEqualTo(101).hasSizeLessThan(400);

            DocumentWriter second = cluster.root().documents();
            for (String id : acknowledged) {
                assertThat(second.get(id).join().outcome()).as(id).isEqualTo(DocumentResult.Outcome.FOUND);
            }
        }
    }

    private SearchResult waitForSearch(EmbeddedCluster cluster, String query, int expected) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            SearchResult result = search(cluster, query);
            if (!result.tainted() && result.hits().size() == expected) {
                return result;
            }
            assertThat(System.nanoTime() - deadline).as("waiting for %s hits of %s, last %s", expected, query,
                    result.hits().size()).isNegative();
            Thread.sleep(50);
        }
    }

    private static SearchResult search(EmbeddedCluster cluster, String query) {
        return cluster.client().search(SearchRequest.builder(query).k(100).exactTotalHits().build()).join();
    }

    private static List<String> ids(SearchResult result) {
        return result.hits().stream().map(Hit::id).toList();
    }

    private HttpResponse<String> send(String method, EmbeddedCluster cluster, String path, String body)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.httpPort() + path))
                .timeout(PATIENCE)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
