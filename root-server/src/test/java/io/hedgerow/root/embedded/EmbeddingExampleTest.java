package io.hedgerow.root.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.root.TestData;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The README's embedding example, as written there, over Europarl. */
class EmbeddingExampleTest {

    @Test
    void readmeExampleRunsAndFindsHits() throws Exception {
        Path data = TestData.europarl(16).dir().getParent(); // reuse the index the other tests built
        try (EmbeddedCluster cluster = EmbeddedCluster.builder(data)
                .europarl()
                .leaves(4).partitions(16).replicas(2)
                .http(0)
                .start()) {
            SearchResult result = cluster.client()
                    .search(SearchRequest.builder("\"human rights\"").k(5).build())
                    .join();
            result.hits().forEach(hit -> System.out.println(hit.score() + " " + hit.fields().get("title")));
            System.out.println(result.coverage() + (result.tainted() ? " (partial)" : ""));

            assertThat(result.hits()).hasSize(5);
            assertThat(result.hits()).allSatisfy(hit -> assertThat(hit.fields().get("title")).isNotBlank());
            assertThat(result.tainted()).isFalse();
            HttpResponse<String> http = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + cluster.httpPort() + "/health")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(http.body()).contains("\"status\":\"ok\"");
        }
    }
}
