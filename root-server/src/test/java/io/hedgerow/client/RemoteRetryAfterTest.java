package io.hedgerow.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.api.QueryPriority;
import io.hedgerow.api.SearchException;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.leaf.fault.InjectedDelay;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.root.Await;
import io.hedgerow.root.TestData;
import io.hedgerow.root.admission.AdmissionSettings;
import io.hedgerow.root.embedded.EmbeddedCluster;
import io.hedgerow.root.tail.TailSettings;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The root's {@code Retry-After} over real sockets: with admission control fixed at one search in
 * flight, no queue, and that one held at the leaves by an injected delay, a second search is refused with a
 * 503 {@code overloaded}; the client waits what the root says and sends it again until admitted,
 * or, allowed one send only, fails with the root's refusal. The tests wait on the root's in-flight
 * count, never on a sleep.
 */
@Timeout(120)
class RemoteRetryAfterTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @Test
    void aSearchRefusedAsOverloadedIsSentAgainAfterRetryAfterAndAnswered(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = start(data);
                HttpHedgerowClient client = client(cluster, RetryPolicy.of(20, Duration.ofSeconds(5)))) {
            CompletableFuture<SearchResult> first = holdOneSearch(cluster, client);

            SearchResult second = client.search(SearchRequest.builder("bravo").cache(false).build()).join();

            assertThat(cluster.root().admission().rejected(QueryPriority.INTERACTIVE))
                    .as("the second search was refused at least once before it was admitted").isPositive();
            assertThat(second.hits()).isNotEmpty();
            assertThat(first.join().hits()).isNotEmpty();
        }
    }

    @Test
    void withoutRetriesTheRefusalComesBackWithTheRootsWords(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = start(data);
                HttpHedgerowClient client = client(cluster, RetryPolicy.never())) {
            CompletableFuture<SearchResult> first = holdOneSearch(cluster, client);

            assertThatThrownBy(() -> client.search(SearchRequest.builder("bravo").cache(false).build()).join()).cause()
                    .isInstanceOf(SearchException.class)
                    .hasMessageContaining("1 in flight, fixed admission control")
                    .hasMessageEndingWith("(gave up after 1 attempt; the root said Retry-After: 1)")
                    .satisfies(e -> assertThat(((SearchException) e).kind()).isEqualTo(SearchException.Kind.UNAVAILABLE));
            assertThat(first.join().hits()).isNotEmpty();
        }
    }

    private static EmbeddedCluster start(Path data) throws Exception {
        return EmbeddedCluster.builder(data).documents("retry", IndexConfig.defaults(), TestData.documents(31, 200))
                .leaves(2).partitions(4).replicas(2).faultInjection(true)
                .tail(TailSettings.defaults().withCanaries(0)) // a held search must not be taken for a dangerous one
                .admission(AdmissionSettings.defaults().withAlgorithm(AdmissionSettings.Algorithm.FIXED).withLimits(1, 1, 1)
                        .withMaxQueued(0)) // no queue: over the limit is refused at once
                .http(0).start();
    }

    /** Starts a search the leaves hold for a while, and waits until the root counts it in flight. */
    private static CompletableFuture<SearchResult> holdOneSearch(EmbeddedCluster cluster, HttpHedgerowClient client)
            throws Exception {
        for (int leaf = 0; leaf < cluster.leaves().size(); leaf++) {
            cluster.root().leafFaults().injectDelay(leaf, InjectedDelay.of(Duration.ofMillis(400), 1.0,
                    Duration.ofSeconds(60))).join();
        }
        CompletableFuture<SearchResult> first = client.search(SearchRequest.builder("alpha").cache(false).build());
        Await.until("the first search in flight", PATIENCE, () -> cluster.root().admission().inflight() == 1);
        return first;
    }

    private static HttpHedgerowClient client(EmbeddedCluster cluster, RetryPolicy retry) {
        return HttpHedgerowClient.builder(URI.create("http://127.0.0.1:" + cluster.httpPort())).retry(retry).build();
    }
}
