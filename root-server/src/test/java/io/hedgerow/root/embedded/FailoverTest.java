package io.hedgerow.root.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.api.PartitionError;
import io.hedgerow.api.SearchException;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.PartitionAssignment;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Leaves go away; the root answers from replicas, then with what is left, marked tainted. */
class FailoverTest {
    private static final List<String> QUERIES = List.of("alpha", "bravo charlie", "+delta +echo", "\"alpha bravo\"",
            "title:golf", "kilo OR lima");

    @Test
    void answersCompletelyFromReplicasWhenOneLeafIsDown(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = start(data)) {
            List<SearchResult> before = searchAll(cluster);

            cluster.leaves().get(1).close();

            List<SearchResult> after = searchAll(cluster);
            for (int i = 0; i < QUERIES.size(); i++) {
                assertThat(after.get(i).tainted()).as(QUERIES.get(i)).isFalse();
                assertThat(after.get(i).hits()).as(QUERIES.get(i)).isEqualTo(before.get(i).hits());
                assertThat(after.get(i).totalHits()).isEqualTo(before.get(i).totalHits());
            }
        }
    }

    @Test
    void answersWithTheRestMarkedTaintedWhenEveryReplicaOfSomePartitionsIsDown(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = start(data)) {
            PartitionAssignment assignment = cluster.root().cluster().assignment();
            cluster.leaves().get(0).close();
            cluster.leaves().get(1).close();
            Set<Integer> lost = IntStream.range(0, assignment.partitions())
                    .filter(p -> IntStream.of(assignment.replicasOf(p)).allMatch(leaf -> leaf <= 1))
                    .boxed().collect(java.util.stream.Collectors.toSet());
            assertThat(lost).as("partitions held only by leaves 0 and 1").isNotEmpty();

            SearchResult result = cluster.client().search(SearchRequest.builder("alpha").exactTotalHits().build()).join();

            assertThat(result.tainted()).isTrue();
            assertThat(result.coverage().partitionsAnswered()).isEqualTo(assignment.partitions() - lost.size());
            assertThat(result.coverage().docsFraction()).isGreaterThan(0).isLessThan(1);
            assertThat(result.errors()).extracting(PartitionError::partition).containsExactlyInAnyOrderElementsOf(lost);
            assertThat(result.errors()).extracting(PartitionError::kind).containsOnly(PartitionError.Kind.UNAVAILABLE);
            assertThat(result.hits()).isNotEmpty().allSatisfy(hit -> assertThat(lost).doesNotContain(hit.partition()));
            assertThat(result.totalHits().exact()).as("a count with partitions missing is a lower bound").isFalse();
        }
    }

    @Test
    void failsWithUnavailableWhenNoLeafIsUp(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = start(data)) {
            cluster.leaves().forEach(leaf -> leaf.close());

            assertThatThrownBy(() -> cluster.client().search(SearchRequest.of("alpha")).join())
                    .isInstanceOf(CompletionException.class)
                    .cause().isInstanceOf(SearchException.class)
                    .hasMessageContaining("no partition answered")
                    .satisfies(e -> assertThat(((SearchException) e).kind()).isEqualTo(SearchException.Kind.UNAVAILABLE));
        }
    }

    private static EmbeddedCluster start(Path data) throws Exception {
        return EmbeddedCluster.builder(data)
                .documents("failover", IndexConfig.defaults(), TestData.documents(7, 600))
                .leaves(3).partitions(6).replicas(2)
                .start();
    }

    private static List<SearchResult> searchAll(EmbeddedCluster cluster) {
        return QUERIES.stream()
                .map(q -> cluster.client().search(SearchRequest.builder(q).k(20).exactTotalHits().build()).join())
                .toList();
    }
}
