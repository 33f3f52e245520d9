package io.hedgerow.root.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.root.TestData;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A root with a write token, over real sockets: writes to {@code /documents} without it, or with
 * another, are refused with 401 and a JSON error and change nothing; with it they are acknowledged;
 * reading a document needs no token.
 */
class WriteTokenTest {
    private static final String TOKEN = "write-token-for-the-test-0123456789";
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void writesNeedTheWriteTokenAndReadsDoNot(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder(data)
                .documents("live", IndexConfig.defaults(), TestData.documents(2, 50))
                .leaves(1).partitions(2).replicas(1).http(0).writeToken(TOKEN)
                .start()) {
            String doc = "{\"title\": \"okavango\", \"body\": \"an okavango egret\"}";
            HttpResponse<String> none = send(cluster, "PUT", "/documents/t-1", doc, null);
            assertThat(none.statusCode()).isEqualTo(401);
            assertThat(none.body()).contains("\"error\":\"unauthorized\"").contains("write token");
            HttpResponse<String> wrong = send(cluster, "POST", "/documents", "{\"id\": \"t-2\", \"title\": \"x\"}\n",
                    "not-the-write-token-0123456789");
            assertThat(wrong.statusCode()).isEqualTo(401);
            assertThat(wrong.body()).contains("does not match").doesNotContain(TOKEN);
            assertThat(send(cluster, "DELETE", "/documents/t-1", null, null).statusCode()).isEqualTo(401);
            assertThat(send(cluster, "GET", "/documents/t-1", null, null).statusCode())
                    .as("nothing was written, and reading needs no token").isEqualTo(404);

            HttpResponse<String> written = send(cluster, "PUT", "/documents/t-1", doc, TOKEN);
            assertThat(written.statusCode()).as(written.body()).isBetween(200, 201);
            HttpResponse<String> read = send(cluster, "GET", "/documents/t-1", null, null);
            assertThat(read.statusCode()).isEqualTo(200);
            assertThat(read.body()).contains("okavango");
        }
    }

    private HttpResponse<String> send(EmbeddedCluster cluster, String method, String path, String body, String token)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.httpPort() + path))
                .timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
