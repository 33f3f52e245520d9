package io.hedgerow.root.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.Hit;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.root.TestData;
import io.hedgerow.root.tail.TailSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Leaf batching end to end (real sockets, real Lucene indexes, the root's Netty adapter): with it
 * on, a search's first copies go to each leaf in one message and the leaves run them as one task
 * each, and the result is the one the same search gets with it off, every partition answered.
 */
@Timeout(120)
class LeafBatchingTest {
    private static final int PARTITIONS = 8;

    private static EmbeddedCluster start(Path data, boolean leafBatching) throws Exception {
        return EmbeddedCluster.builder(data)
                .documents("batching", IndexConfig.defaults(), TestData.documents(7, 600))
                .leaves(2).partitions(PARTITIONS).replicas(2)
                .defaultTimeout(Duration.ofSeconds(30))
                // No canary: the whole fan-out goes out at once; no hedging, so every copy is a primary.
                .tail(TailSettings.defaults().withCanaries(0))
                .hedge(io.hedgerow.root.hedge.HedgeSettings.defaults().withDefaultMode(io.hedgerow.api.HedgeMode.OFF))
                .leafBatching(leafBatching)
                .start();
    }

    private static SearchResult search(EmbeddedCluster cluster) {
        return cluster.client().search(SearchRequest.builder("alpha OR charlie").k(30).exactTotalHits().explain(true)
                .cache(false).build()).join();
    }

    private static long partsTasks(EmbeddedCluster cluster) {
        return cluster.leaves().stream().mapToLong(leaf -> leaf.counters().searchPartsTasks()).sum();
    }

    @Test
    void aSearchSentAsOneMessagePerLeafAnswersAsTheSameSearchSentPerPartition(@TempDir Path on, @TempDir Path off)
            throws Exception {
        SearchResult batched;
        SearchResult single;
        try (EmbeddedCluster cluster = start(on, true)) {
            batched = search(cluster);
            assertThat(partsTasks(cluster)).as("tasks that ran several partitions of one message").isPositive();
        }
        try (EmbeddedCluster cluster = start(off, false)) {
            single = search(cluster);
            assertThat(partsTasks(cluster)).isZero();
        }

        for (SearchResult result : List.of(batched, single)) {
            assertThat(result.tainted()).isFalse();
            assertThat(result.coverage().partitionsAnswered()).isEqualTo(PARTITIONS);
            assertThat(result.trace()).filteredOn(t -> t.kind() != SubRequestTrace.Kind.FETCH)
                    .hasSize(PARTITIONS).allSatisfy(t -> assertThat(t.kind()).isEqualTo(SubRequestTrace.Kind.PRIMARY));
        }
        assertThat(batched.totalHits()).isEqualTo(single.totalHits());
        assertThat(batched.hits()).extracting(Hit::id).isEqualTo(single.hits().stream().map(Hit::id).toList());
    }
}
