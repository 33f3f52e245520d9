package io.hedgerow.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.root.LinkRelay;
import io.hedgerow.root.embedded.EmbeddedCluster;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The remote client keeps its connections: searches one after another go over one connection,
 * and a burst of concurrent ones over no more connections than searches, all of them kept for the
 * next burst. Counted by a relay in front of the root, which sees every connection the client opens.
 */
@Timeout(120)
class RemoteClientConnectionsTest {

    @Test
    void reusesItsConnectionsAcrossSearches(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder(data)
                .documents("connections", HedgerowClientContract.config(), HedgerowClientContract.documents())
                .leaves(2).partitions(4).replicas(1).http(0).start();
             LinkRelay relay = new LinkRelay(cluster.httpPort());
             HttpHedgerowClient client = HttpHedgerowClient.builder(URI.create("http://" + relay.address())).build()) {
            for (int i = 0; i < 20; i++) {
                SearchResult result = client.search(SearchRequest.builder("heron").k(3).cache(false).build()).join();
                assertThat(result.hits()).hasSize(3);
            }
            assertThat(relay.accepted()).as("connections for 20 searches one after another").isEqualTo(1);

            List<CompletableFuture<SearchResult>> burst = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                burst.add(client.search(SearchRequest.builder("common").k(2).cache(false).build()));
            }
            burst.forEach(CompletableFuture::join);
            int afterBurst = relay.accepted();
            assertThat(afterBurst).as("connections after 8 concurrent searches").isBetween(1, 1 + 8);
            for (int i = 0; i < 8; i++) {
                client.search(SearchRequest.builder("heron").k(1).cache(false).build()).join();
            }
            assertThat(relay.accepted()).as("no new connection once the pool holds some").isEqualTo(afterBurst);
        }
    }
}
