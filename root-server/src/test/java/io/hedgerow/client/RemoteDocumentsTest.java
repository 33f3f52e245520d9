package io.hedgerow.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.root.embedded.EmbeddedCluster;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writes through {@link HttpHedgerowClient} to a real root with a write token (real leaves, a real
 * index with a routing key): created (a multi-valued field too), read back realtime, found by a search once refreshed,
 * refused on a stale version, deleted; a bulk answers per line; without the token the root's 401
 * comes back as an {@link HttpApiException} with its detail.
 */
@Timeout(120)
class RemoteDocumentsTest {
    private static final String TOKEN = "write-token-for-the-client-test-0123456789";

    @Test
    void writesReadsAndDeletesDocumentsWithTheWriteToken(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = start(data);
                HttpHedgerowClient client = client(cluster, TOKEN)) {
            DocumentResponse created = client.put(new Document("w-1", Map.of("title", "zanzibar heron", "body",
                    "a heron in zanzibar", "lang", "fr")), WriteOptions.refreshed()).join();

            assertThat(created.outcome()).isEqualTo(DocumentResponse.Outcome.CREATED);
            assertThat(created.status()).isEqualTo(201);
            assertThat(created.version()).isPositive();
            SearchResult found = client.search(SearchRequest.builder("zanzibar").routing("fr").cache(false).build()).join();
            assertThat(found.hits()).extracting(hit -> hit.id()).containsExactly("w-1");
            DocumentResponse read = client.get("w-1", "fr").join();
            assertThat(read.outcome()).isEqualTo(DocumentResponse.Outcome.FOUND);
            assertThat(read.fields()).containsEntry("title", "zanzibar heron").containsEntry("lang", "fr");
            assertThat(read.version()).isEqualTo(created.version());

            DocumentResponse stale = client.put(new Document("w-1", Map.of("title", "t", "body", "b", "lang", "fr")),
                    WriteOptions.NONE.withIfVersion(created.version() + 100)).join();
            DocumentResponse updated = client.put(new Document("w-1", Map.of("title", "t", "body", "b", "lang", "fr")),
                    WriteOptions.NONE.withIfVersion(created.version())).join();
            assertThat(stale.outcome()).isEqualTo(DocumentResponse.Outcome.CONFLICT);
            assertThat(stale.status()).isEqualTo(409);
            assertThat(updated.outcome()).isEqualTo(DocumentResponse.Outcome.UPDATED);

            DocumentResponse deleted = client.delete("w-1", WriteOptions.refreshed().withRouting("fr")).join();
            assertThat(deleted.outcome()).isEqualTo(DocumentResponse.Outcome.DELETED);
            assertThat(client.get("w-1", "fr").join().outcome()).isEqualTo(DocumentResponse.Outcome.NOT_FOUND);
            assertThat(client.search(SearchRequest.builder("zanzibar").cache(false).build()).join().hits()).isEmpty();
        }
    }

    @Test
    void aMultiValuedFieldIsWrittenAsAListAndReadBackAsOne(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = start(data);
                HttpHedgerowClient client = client(cluster, TOKEN)) {
            DocumentResponse created = client.put(new Document("w-3", Map.of("title", "marsh harrier", "body",
                    List.of("quartering the reeds", "low over the marsh"), "lang", "fr")), WriteOptions.refreshed()).join();
            assertThat(created.outcome()).as(created.error()).isEqualTo(DocumentResponse.Outcome.CREATED);

            DocumentResponse read = client.get("w-3", "fr").join();
            assertThat(read.fields()).containsEntry("body", List.of("quartering the reeds", "low over the marsh"))
                    .containsEntry("title", "marsh harrier");
            assertThat(read.values("body")).containsExactly("quartering the reeds", "low over the marsh");
            assertThat(read.values("title")).containsExactly("marsh harrier");
            assertThat(read.values("none")).isEmpty();
            assertThat(client.search(SearchRequest.builder("reeds").routing("fr").cache(false).build()).join().hits())
                    .extracting(hit -> hit.id()).containsExactly("w-3");
        }
    }

    @Test
    void aBulkWriteAnswersEachDocument(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = start(data);
                HttpHedgerowClient client = client(cluster, TOKEN)) {
            BulkResponse bulk = client.bulk(List.of(
                    new Document("b-1", Map.of("title", "okapi", "body", "an okapi", "lang", "de")),
                    new Document("b-2", Map.of("title", "okapi", "body", "no language")),
                    new Document("b-3", Map.of("title", "okapi", "body", "another okapi", "lang", "nl"))), true).join();

            assertThat(bulk.errors()).isTrue();
            assertThat(bulk.items()).extracting(BulkResponse.Item::line).containsExactly(1L, 2L, 3L);
            assertThat(bulk.items()).extracting(item -> item.document().outcome()).containsExactly(
                    DocumentResponse.Outcome.CREATED, DocumentResponse.Outcome.REJECTED, DocumentResponse.Outcome.CREATED);
            assertThat(bulk.items().get(1).document().error()).contains("routing value");
            assertThat(client.search(SearchRequest.builder("okapi").cache(false).build()).join().totalHits().value())
                    .isEqualTo(2);
        }
    }

    @Test
    void aWriteWithoutTheTokenIsRefusedWithTheRootsDetail(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = start(data);
                HttpHedgerowClient anonymous = client(cluster, null);
                HttpHedgerowClient wrong = client(cluster, "not-the-token-0123456789")) {
            Document document = new Document("w-2", Map.of("title", "t", "body", "b", "lang", "it"));

            assertThatThrownBy(() -> anonymous.put(document).join()).cause().isInstanceOf(HttpApiException.class)
                    .hasMessageContaining("Authorization: Bearer <write token>")
                    .satisfies(e -> assertThat(((HttpApiException) e).status()).isEqualTo(401))
                    .satisfies(e -> assertThat(((HttpApiException) e).code()).isEqualTo("unauthorized"));
            assertThatThrownBy(() -> wrong.delete("w-2", WriteOptions.NONE.withRouting("it")).join()).cause()
                    .isInstanceOf(HttpApiException.class).hasMessage("the write token does not match");
            assertThat(anonymous.get("w-2", "it").join().outcome())
                    .as("nothing was written, and reading needs no token").isEqualTo(DocumentResponse.Outcome.NOT_FOUND);
        }
    }

    @Test
    void aReadByIdWithoutItsRoutingValueIsRejectedAndAMalformedIdNeverSent(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = start(data);
                HttpHedgerowClient client = client(cluster, TOKEN)) {
            DocumentResponse withoutRouting = client.get("d-1").join();

            assertThat(withoutRouting.outcome()).isEqualTo(DocumentResponse.Outcome.REJECTED);
            assertThat(withoutRouting.status()).isEqualTo(400);
            assertThat(withoutRouting.error()).contains("routing");
            assertThat(client.get("d-1", "fr").join().fields()).containsEntry("lang", "fr");
            assertThatThrownBy(() -> client.get("a/b")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("id: 'a/b' (expected: a non-empty id without '/')");
        }
    }

    private static EmbeddedCluster start(Path data) throws Exception {
        return EmbeddedCluster.builder(data).documents("writes", HedgerowClientContract.config(),
                HedgerowClientContract.documents()).leaves(2).partitions(HedgerowClientContract.PARTITIONS).replicas(2)
                .writeToken(TOKEN).http(0).start();
    }

    private static HttpHedgerowClient client(EmbeddedCluster cluster, String token) {
        return HttpHedgerowClient.builder(URI.create("http://127.0.0.1:" + cluster.httpPort())).writeToken(token).build();
    }
}
