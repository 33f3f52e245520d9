package io.hedgerow.root.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.HedgeMode;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.leaf.fault.InjectedDelay;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.server.LeafServer;
import io.hedgerow.root.TestData;
import io.hedgerow.root.adapt.AdaptationSettings;
import io.hedgerow.root.cluster.LeafStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leaf that drains, seen from the root over real sockets: the root marks it draining as soon as
 * the leaf says so and sends it no new sub-request, searches meanwhile are answered in full by the
 * replicas, and the search the leaf held when it began to close is answered, not failed.
 */
class DrainingLeafTest {
    @Test
    void theRootStopsChoosingADrainingLeafAndItsHeldSearchIsStillAnswered(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder(data)
                .documents("drain", IndexConfig.defaults(), TestData.documents(5, 400))
                .partitions(4).leaves(2).replicas(2).faultInjection(true)
                // Replicas in preferred order, so the held search has sub-requests on leaf 0: C3 may
                // send every partition to whichever leaf the first searches found faster.
                .adaptation(AdaptationSettings.defaults().withLatencyAwareChoice(false))
                .leafSettings(config -> config.withWorkers(1).withDrainTimeout(Duration.ofSeconds(30)))
                .start()) {
            LeafServer draining = cluster.leaves().get(0);
            LeafStatus status = cluster.root().cluster().leaf(0);
            assertThat(search(cluster).tainted()).isFalse();
            // Every sub-request on leaf 0 waits 3 s on its worker: a search it holds while it closes.
            cluster.root().leafFaults().injectDelay(0, InjectedDelay.of(Duration.ofSeconds(3), 1.0, Duration.ofMinutes(1)))
                    .get(30, TimeUnit.SECONDS);
            CompletableFuture<SearchResult> held = cluster.client().search(query());
            Eventually.await(() -> draining.delaysInjected() >= 1, "leaf 0 to hold a sub-request");
            long sentToLeaf0 = status.subRequests();

            CompletableFuture<Void> closing = CompletableFuture.runAsync(draining::close);
            Eventually.await(status::isDraining, "the root to learn that leaf 0 drains");
            assertThat(status.state()).isEqualTo(LeafStatus.State.DRAINING);

            for (int i = 0; i < 5; i++) {
                SearchResult during = search(cluster);
                assertThat(during.tainted()).as("answered by the replicas: %s", during.errors()).isFalse();
            }
            assertThat(draining.counters().drainRefusals()).as("nothing new was sent to the draining leaf").isZero();

            SearchResult answered = held.get(30, TimeUnit.SECONDS);
            assertThat(answered.tainted()).as("the held search: %s", answered.errors()).isFalse();
            closing.get(30, TimeUnit.SECONDS);
            assertThat(status.subRequests()).as("the held sub-requests were answered, none failed")
                    .isGreaterThan(sentToLeaf0);
            assertThat(status.failures()).isZero();
        }
    }

    private static SearchRequest query() {
        return SearchRequest.builder("alpha OR bravo").k(10).hedge(HedgeMode.OFF).cache(false).timeoutMillis(30_000).build();
    }

    private static SearchResult search(EmbeddedCluster cluster) {
        return cluster.client().search(query()).join();
    }

    /** Waits for what the cluster does on its own threads; the bound is for one that never does. */
    private static final class Eventually {
        static void await(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!condition.getAsBoolean()) {
                assertThat(System.nanoTime() - deadline).as("waiting for %s", what).isNegative();
                Thread.sleep(5);
            }
        }
    }
}
