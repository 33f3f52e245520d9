package io.hedgerow.root.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.Hit;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.root.TestData;
import io.hedgerow.root.hedge.HedgeSettings;
import io.hedgerow.root.tail.TailSettings;
import io.hedgerow.root.write.DocumentResult;
import io.hedgerow.root.write.DocumentWriter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Acknowledged writes outlive the whole local cluster: a fresh {@code local} on the same data (its
 * leaves on new ports, named by their number) serves every one of them, and its root, which knows
 * nothing of the earlier writes, neither makes a replica that missed some of them the primary nor
 * numbers new writes below what the replicas hold. Its HTTP writes need the write token it generated
 * and printed. Leaves are real child JVMs.
 */
class LocalRestartIngestionTest {
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final int PARTITIONS = 4;

    @Test
    void aFreshLocalClusterServesEveryAcknowledgedWriteAndNumbersNewOnesAboveThem(@TempDir Path data) throws Exception {
        PartitionStore index = new PartitionStore(data.resolve("restart"));
        new IndexBuilder(IndexOptions.defaults().withPartitions(PARTITIONS), IndexProgress.none())
                .build(index, "restart", IndexConfig.defaults(), TestData.documents(5, 200));
        LocalClusterOptions options = new LocalClusterOptions(index.dir(), 2, 2, "127.0.0.1", 0,
                new RunDirectory(data.resolve("run")),
                new JavaLauncher(ProcessHandle.current().info().command().orElse("java"),
                        System.getProperty("java.class.path"), "256m"),
                PATIENCE, false, Duration.ZERO, HedgeSettings.defaults(), TailSettings.defaults(), 0);
        Map<Integer, Long> highestVersion = new HashMap<>();
        Set<String> acknowledged = new HashSet<>();
        try (LocalCluster first = LocalCluster.start(options, quiet())) {
            DocumentWriter documents = first.root().documents();
            write(documents, "both", acknowledged, highestVersion);
            first.killLeaf(0);
            // Leaf 1 alone has these: leaf 0 is down until the cluster stops.
            write(documents, "missed", acknowledged, highestVersion);
        }

        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        try (LocalCluster second = LocalCluster.start(options, new PrintStream(progress, true))) {
            DocumentWriter documents = second.root().documents();
            String token = Files.readString(options.runDirectory().writeTokenFile()).trim();
            assertThat(token).isEqualTo(second.writeToken()).isNotEqualTo(second.adminToken());
            assertThat(progress.toString()).contains("write token: " + token);
            assertThat(put(second, "by-http", null).statusCode()).as("a write without the token").isEqualTo(401);
            assertThat(put(second, "by-http", "wrong-" + token).statusCode()).isEqualTo(401);
            HttpResponse<String> written = put(second, "by-http", token);
            assertThat(written.statusCode()).as(written.body()).isEqualTo(201);
            acknowledged.add("by-http");
            for (String id : acknowledged) {
                assertThat(documents.get(id).join().outcome()).as(id).isEqualTo(DocumentResult.Outcome.FOUND);
            }
            awaitInSync(documents);
            Map<Integer, Long> before = new HashMap<>(highestVersion);
            for (int i = 0; i < 20; i++) {
                String id = "after-" + i;
                DocumentResult result = documents.upsert(id, Map.of("title", "okavango " + id, "body", "okavango"),
                        DocumentWriter.WriteOptions.NONE).join();
                assertThat(result.outcome()).as(id).isEqualTo(DocumentResult.Outcome.CREATED);
                assertThat(result.version()).as("%s numbered above every earlier write of partition %s", id,
                        documents.partitionOf(id)).isGreaterThan(before.getOrDefault(documents.partitionOf(id), 0L));
                acknowledged.add(id);
            }
            awaitInSync(documents);
            second.killLeaf(1);

            long deadline = System.nanoTime() + PATIENCE.toNanos();
            while (true) {
                SearchResult result = second.client().search(SearchRequest.builder("okavango").k(1000)
                        .exactTotalHits().build()).join();
                Set<String> found = new HashSet<>(result.hits().stream().map(Hit::id).toList());
                if (!result.tainted() && found.containsAll(acknowledged)) {
                    break;
                }
                assertThat(System.nanoTime() - deadline).as("leaf 0 alone serves %s of %s", found.size(),
                        acknowledged.size()).isNegative();
                Thread.sleep(100);
            }
        }
    }

    private static void write(DocumentWriter documents, String prefix, Set<String> acknowledged,
            Map<Integer, Long> highestVersion) {
        for (int i = 0; i < 20; i++) {
            String id = prefix + "-" + i;
            DocumentResult result = documents.upsert(id, Map.of("title", "okavango " + id, "body", "okavango"),
                    DocumentWriter.WriteOptions.NONE).join();
            assertThat(result.outcome()).as(id).isEqualTo(DocumentResult.Outcome.CREATED);
            acknowledged.add(id);
            highestVersion.merge(documents.partitionOf(id), result.version(), Math::max);
        }
    }

    private static void awaitInSync(DocumentWriter documents) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (IntStream.range(0, PARTITIONS).map(documents::inSyncReplicas).anyMatch(n -> n < 2)) {
            assertThat(System.nanoTime() - deadline).as("leaf 0 catches up from leaf 1's log").isNegative();
            Thread.sleep(50);
        }
    }

    private static HttpResponse<String> put(LocalCluster cluster, String id, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.httpPort()
                        + "/documents/" + id)).timeout(PATIENCE)
                .PUT(HttpRequest.BodyPublishers.ofString("{\"title\": \"okavango\", \"body\": \"okavango by http\"}"));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        try (HttpClient http = HttpClient.newHttpClient()) {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    private static PrintStream quiet() {
        return new PrintStream(PrintStream.nullOutputStream());
    }
}
