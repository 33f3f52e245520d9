package io.hedgerow.root.write;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.server.LeafConfig;
import io.hedgerow.leaf.server.LeafServer;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.LeafAddress;
import io.hedgerow.root.cluster.StaleReplicas;
import io.hedgerow.root.embedded.EmbeddedCluster;
import io.hedgerow.root.write.DocumentWriter.WriteOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The in-sync set is visible and usable: {@link ReplicaSync} answers per partition and leaf,
 * {@code /cluster} lists each partition's primary, in-sync and out-of-sync replicas with their
 * seqs, and {@code /metrics} counts writes, catch-ups and in-sync replicas, as a replica leaves the
 * set and comes back. Real leaves over loopback, real Lucene indexes.
 */
class ReplicaSyncTest {
    private static final Duration PATIENCE = Duration.ofSeconds(20);
    private static final int PARTITIONS = 4;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final ObjectMapper json = new ObjectMapper();

    @Test
    void aStoppedReplicaIsOutOfSyncEverywhereItIsReportedAndInSyncAgainOnceCaughtUp(@TempDir Path data)
            throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder(data)
                .documents("sync", IndexConfig.defaults(), TestData.documents(3, 100))
                .leaves(2).partitions(PARTITIONS).replicas(2).http(0).start()) {
            DocumentWriter documents = cluster.root().documents();
            LeafAddress first = LeafAddress.parse(cluster.leaves().get(0).address());
            LeafAddress second = LeafAddress.parse(cluster.leaves().get(1).address());
            for (int i = 0; i < 10; i++) {
                assertThat(documents.upsert("s-" + i, Map.of("title", "tundra"), WriteOptions.NONE).join().outcome())
                        .isEqualTo(DocumentResult.Outcome.CREATED);
            }
            int port = cluster.leaves().get(1).port();
            cluster.leaves().get(1).close();
            for (int i = 10; i < 30; i++) {
                documents.upsert("s-" + i, Map.of("title", "tundra"), WriteOptions.NONE).join();
            }

            assertThat(IntStream.range(0, PARTITIONS).filter(p -> documents.inSync(p, second))).isEmpty();
            assertThat(IntStream.range(0, PARTITIONS).filter(p -> documents.inSync(p, first))).hasSize(PARTITIONS);
            StaleReplicas stale = cluster.root().cluster().staleReplicas();
            assertThat(IntStream.range(0, PARTITIONS).filter(p -> stale.stale(p, 1))).as("searches avoid it")
                    .hasSize(PARTITIONS);
            assertThat(IntStream.range(0, PARTITIONS).filter(p -> stale.stale(p, 0))).isEmpty();
            JsonNode writes = json.readTree(get(cluster, "/cluster")).path("writes").path("partitions");
            assertThat(writes).hasSize(PARTITIONS);
            for (JsonNode partition : writes) {
                assertThat(partition.path("primary").asText()).isEqualTo(first.toString());
                assertThat(partition.path("in_sync")).hasSize(1);
                JsonNode behind = partition.path("out_of_sync").get(0);
                assertThat(behind.path("leaf").asText()).isEqualTo(second.toString());
                assertThat(behind.path("problem").asText()).isNotEmpty();
                assertThat(behind.path("seq").asLong()).as("it held the first writes")
                        .isLessThan(partition.path("in_sync").get(0).path("seq").asLong());
            }
            String metrics = get(cluster, "/metrics");
            assertThat(metrics).contains("hedgerow_writes_total{outcome=\"acknowledged\"} 30.0")
                    .contains("hedgerow_write_replicas_in_sync{partition=\"0\"} 1.0")
                    .contains("hedgerow_write_batch_latency_seconds_count");

            try (LeafServer ignored = LeafServer.start(LeafConfig.defaults(cluster.index().dir()).withPort(port))) {
                long deadline = System.nanoTime() + PATIENCE.toNanos();
                while (IntStream.range(0, PARTITIONS).anyMatch(p -> !documents.inSync(p, second))) {
                    assertThat(System.nanoTime() - deadline).as("caught up").isNegative();
                    Thread.sleep(20);
                }
                JsonNode again = json.readTree(get(cluster, "/cluster")).path("writes").path("partitions");
                assertThat(again).allSatisfy(p -> assertThat(p.path("out_of_sync")).isEmpty());
                assertThat(stale.count()).as("searches read it again").isZero();
                assertThat(get(cluster, "/metrics")).contains("hedgerow_write_replicas_in_sync{partition=\"0\"} 2.0")
                        .containsPattern("hedgerow_write_catchups_total\\{result=\"completed\"} [1-9]");
            }
        }
    }

    private String get(EmbeddedCluster cluster, String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.httpPort() + path))
                .timeout(PATIENCE).build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body();
    }
}
