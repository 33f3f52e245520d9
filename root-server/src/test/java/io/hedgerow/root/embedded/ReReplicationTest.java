package io.hedgerow.root.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.root.Await;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cluster.PartitionAssignment;
import io.hedgerow.root.placement.PlacementSettings;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leaf gone for good, over real sockets and real Lucene: after the grace period its partitions
 * are copied to the others, the copies serve once their leaves acknowledge them, and then the loss
 * of a second leaf that shared partitions with it costs none of them (without re-replication, two
 * leaves down lose the partitions they alone held, as {@link FailoverTest} shows).
 */
class ReReplicationTest {
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final List<String> QUERIES = List.of("alpha", "bravo charlie", "+delta +echo", "kilo OR lima");

    @Test
    void aGoneLeafsPartitionsAreCopiedToTheOthersSoASecondLossCostsNothing(@TempDir Path data) throws Exception {
        PlacementSettings placement = PlacementSettings.defaults().withGrace(Duration.ofMillis(500)).withMaxOpening(3);
        try (EmbeddedCluster cluster = EmbeddedCluster.builder(data)
                .documents("rereplication", IndexConfig.defaults(), TestData.documents(11, 800))
                .leaves(4).partitions(8).replicas(2).http(0).placement(placement)
                .start()) {
            ClusterState state = cluster.root().cluster();
            PartitionAssignment start = state.assignment();
            List<SearchResult> before = searchAll(cluster);

            cluster.leaves().get(1).close();
            Await.until("every partition back to two serving copies on live leaves", PATIENCE, () -> {
                PartitionAssignment now = state.assignment();
                for (int p = 0; p < now.partitions(); p++) {
                    if (Arrays.stream(now.replicasOf(p)).filter(leaf -> leaf != 1).count() < 2) {
                        return false;
                    }
                }
                return true;
            });
            PartitionAssignment after = state.assignment();
            for (int p : start.partitionsOf(1)) {
                int[] added = Arrays.stream(after.replicasOf(p)).filter(l -> l != 1 && !contains(start.replicasOf(p), l))
                        .toArray();
                assertThat(added).as("partition %d: one new copy", p).hasSize(1);
            }

            JsonNode placementJson = new ObjectMapper().readTree(HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.httpPort() + "/cluster")).build(),
                    HttpResponse.BodyHandlers.ofString()).body()).get("placement");
            assertThat(placementJson.get("gone_leaves").toString()).isEqualTo("[1]");
            assertThat(placementJson.get("counts").get("re_replications").asInt()).isEqualTo(start.partitionsOf(1).length);
            assertThat(placementJson.get("copies")).allSatisfy(copy -> {
                assertThat(copy.get("reason").asText()).isEqualTo("re_replication");
                assertThat(copy.get("state").asText()).isEqualTo("serving");
                assertThat(copy.get("why").asText()).startsWith("replaces the copy on leaf 1");
            });
            assertThat(placementJson.get("last_time_to_full_replication_ms").asLong()).as("grace included").isGreaterThanOrEqualTo(500);

            // Leaf 2 shared partitions with leaf 1 (it is not leaf 1's partner); they now have a copy elsewhere.
            assertThat(IntStream.range(0, start.partitions())
                    .filter(p -> contains(start.replicasOf(p), 1) && contains(start.replicasOf(p), 2)))
                    .as("partitions only leaves 1 and 2 held at start").isNotEmpty();
            cluster.leaves().get(2).close();
            Await.until("leaf 2 seen down", PATIENCE, () -> state.leaf(2).readyConnections() == 0);
            List<SearchResult> afterSecondLoss = searchAll(cluster);
            for (int i = 0; i < QUERIES.size(); i++) {
                assertThat(afterSecondLoss.get(i).tainted()).as(QUERIES.get(i)).isFalse();
                assertThat(afterSecondLoss.get(i).hits()).as(QUERIES.get(i)).isEqualTo(before.get(i).hits());
            }
        }
    }

    private static List<SearchResult> searchAll(EmbeddedCluster cluster) {
        return QUERIES.stream()
                .map(q -> cluster.client().search(SearchRequest.builder(q).k(20).exactTotalHits().build()).join())
                .toList();
    }

    private static boolean contains(int[] values, int value) {
        return Arrays.stream(values).anyMatch(v -> v == value);
    }
}
