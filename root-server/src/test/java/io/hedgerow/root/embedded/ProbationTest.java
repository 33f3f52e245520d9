package io.hedgerow.root.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.LeafTrace;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.leaf.fault.InjectedDelay;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.root.TestData;
import io.hedgerow.root.adapt.AdaptationSettings;
import io.hedgerow.root.adapt.Probation;
import io.hedgerow.root.hedge.HedgeSettings;
import io.hedgerow.root.tail.TailSettings;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Latency-induced probation over real sockets: four real leaves (8 partitions, 2 replicas), one
 * made slow with the leaves' fault injection. It goes on probation, shadow requests reach it while
 * it is there, and it returns once the delay is cleared. The timing is shortened (slow for 0.5 s,
 * normal for 1 s, 10 answers) so the test runs in seconds; the rule is {@link Probation}'s.
 */
class ProbationTest {
    private static final int SLOW_LEAF = 3;

    @Test
    void aSlowLeafGoesOnProbationIsShadowedAndReturnsWhenWell(@TempDir Path data) throws Exception {
        AdaptationSettings adaptation = AdaptationSettings.defaults()
                .withProbationTiming(Duration.ofMillis(500), Duration.ofSeconds(1), 10)
                .withShadowFraction(1.0);
        try (EmbeddedCluster cluster = EmbeddedCluster.builder(data)
                .documents("probation", IndexConfig.defaults(), TestData.documents(5, 800))
                .leaves(4).partitions(8).replicas(2)
                .faultInjection(true)
                .hedge(HedgeSettings.defaults())
                .tail(TailSettings.defaults().withCanaries(0).withCache(Duration.ofSeconds(1), 0, 1))
                .adaptation(adaptation)
                .http(0)
                .start()) {
            Probation probation = cluster.root().cluster().probation();
            searchUntil(cluster, () -> cluster.root().cluster().probation().latencyNanos(SLOW_LEAF) > 0
                    && !probation.onProbation(SLOW_LEAF), 200);
            cluster.root().leafFaults().injectDelay(SLOW_LEAF,
                    InjectedDelay.of(Duration.ofMillis(30), 1.0, Duration.ofMinutes(1))).join();

            searchUntil(cluster, () -> probation.onProbation(SLOW_LEAF), Integer.MAX_VALUE);
            assertThat(probation.count()).isOne();
            assertThat(probation.state(SLOW_LEAF).reason()).contains("the median");
            String clusterJson = get(cluster, "/cluster");
            assertThat(clusterJson).contains("\"state\":\"probation\"").contains("\"reason\":\"latency ")
                    .contains("\"since\":");
            assertThat(get(cluster, "/metrics")).contains("hedgerow_leaves_probation 1.0");

            // The explain trace says why: the leaf on probation, with the reason, and no primary sent to it.
            SearchResult explained = cluster.client().search(SearchRequest.builder("alpha OR bravo").k(10)
                    .explain(true).build()).join();
            String slowName = cluster.root().cluster().leaf(SLOW_LEAF).name();
            assertThat(explained.leaves()).hasSize(4);
            LeafTrace slow = explained.leaves().get(SLOW_LEAF);
            assertThat(slow.leaf()).isEqualTo(slowName);
            assertThat(slow.state()).isEqualTo("probation");
            assertThat(slow.reason()).contains("the median");
            assertThat(slow.responseMillis()).as("its EWMAs, from shadow answers").isNotNull();
            assertThat(explained.leaves()).filteredOn(leaf -> leaf.state().equals("in_rotation")).hasSize(3)
                    .allSatisfy(leaf -> assertThat(leaf.rank()).isNotNull());
            assertThat(explained.trace()).filteredOn(sub -> sub.kind() == SubRequestTrace.Kind.PRIMARY)
                    .isNotEmpty().noneMatch(sub -> sub.leaf().equals(slowName));
            assertThat(get(cluster, "/search?q=alpha&explain=true")).contains("\"leaves\":[")
                    .contains("\"state\":\"probation\"");

            double shadowsBefore = shadows(cluster);
            searchUntil(cluster, () -> shadows(cluster) > shadowsBefore + 5, Integer.MAX_VALUE);
            assertThat(probation.onProbation(SLOW_LEAF)).as("still slow: still on probation").isTrue();

            cluster.root().leafFaults().injectDelay(SLOW_LEAF, InjectedDelay.NONE).join();
            searchUntil(cluster, () -> !probation.onProbation(SLOW_LEAF), Integer.MAX_VALUE);
            assertThat(probation.count()).isZero();
            assertThat(get(cluster, "/metrics")).contains("hedgerow_leaves_probation 0.0");
        }
    }

    private static double shadows(EmbeddedCluster cluster) {
        return cluster.root().metrics().registry().get("hedgerow.subrequests").tags("kind", "shadow").counter().count();
    }

    /** Searches one after another until {@code condition} holds or {@code atMost} searches ran; fails after 30 s. */
    private static void searchUntil(EmbeddedCluster cluster, BooleanSupplier condition, int atMost) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        for (int i = 0; i < atMost && !condition.getAsBoolean(); i++) {
            assertThat(System.nanoTime() - deadline).as("condition still false after 30 s").isNegative();
            cluster.client().search(SearchRequest.builder(i % 2 == 0 ? "alpha OR bravo" : "charlie OR delta").k(10)
                    .build()).join();
        }
    }

    private static String get(EmbeddedCluster cluster, String path) throws Exception {
        try (HttpClient client = HttpClient.newHttpClient()) {
            return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.httpPort() + path)).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        }
    }
}
