package io.hedgerow.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.root.TestData;
import io.hedgerow.root.embedded.EmbeddedCluster;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The remote client's example in {@code docs/http-api.md}: run here against a real root, and the
 * document's code block checked to be these very lines (between the example markers below).
 */
@Timeout(120)
class RemoteClientExampleTest {
    private static final Path DOC = Path.of("..", "docs", "http-api.md");
    private static final Path SOURCE = Path.of("src", "test", "java", "io", "hedgerow", "client",
            "RemoteClientExampleTest.java");

    @Test
    void theDocumentedExampleWritesThenFinds(@TempDir Path data) throws Exception {
        String writeToken = "write-token-for-the-example-0123456789";
        try (EmbeddedCluster cluster = EmbeddedCluster.builder(data).documents("example", IndexConfig.defaults(),
                TestData.documents(5, 100)).leaves(2).partitions(4).replicas(2).writeToken(writeToken).http(0).start()) {
            int port = cluster.httpPort();
            SearchResult found;
            DocumentResponse stored;
            // example:start
            try (HttpHedgerowClient client = HttpHedgerowClient.builder(URI.create("http://127.0.0.1:" + port))
                    .writeToken(writeToken)           // only writes need it, and only when the root has one
                    .build()) {
                DocumentResponse written = client.put(new Document("note-1",
                        Map.of("title", "a heron", "body", "a grey heron by the river")), WriteOptions.refreshed()).join();
                SearchResult result = client.search(SearchRequest.builder("heron").k(5).build()).join();
                result.hits().forEach(hit -> System.out.println(hit.score() + " " + hit.fields().get("title")));
                System.out.println(written.outcome() + ", " + result.coverage() + (result.tainted() ? " (partial)" : ""));
                // example:end
                found = result;
                stored = written;
            }
            assertThat(stored.outcome()).isEqualTo(DocumentResponse.Outcome.CREATED);
            assertThat(found.hits()).extracting(hit -> hit.id()).containsExactly("note-1");
            assertThat(found.tainted()).isFalse();
        }
    }

    @Test
    void theDocumentShowsTheseLines() throws Exception {
        List<String> source = Files.readAllLines(SOURCE);
        List<String> example = strip(source.subList(source.indexOf("            // example:start") + 1,
                source.indexOf("                // example:end")));
        example = new java.util.ArrayList<>(example);
        example.add("}");
        List<String> doc = Files.readAllLines(DOC);
        int start = doc.indexOf("<!-- RemoteClientExampleTest: the lines between its example markers -->");
        assertThat(start).as("marker in " + DOC).isNotNegative();
        List<String> block = doc.subList(start + 2, doc.subList(start + 2, doc.size()).indexOf("```") + start + 2);

        assertThat(block).containsExactlyElementsOf(example);
    }

    /** The lines without the indentation of the first. */
    private static List<String> strip(List<String> lines) {
        int indent = lines.get(0).length() - lines.get(0).stripLeading().length();
        return lines.stream().map(line -> line.length() >= indent ? line.substring(indent) : line.strip()).toList();
    }
}
