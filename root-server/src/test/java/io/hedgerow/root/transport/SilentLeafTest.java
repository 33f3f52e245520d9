package io.hedgerow.root.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.server.LeafServer;
import io.hedgerow.root.Await;
import io.hedgerow.root.LinkRelay;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.cluster.LeafStatus;
import io.hedgerow.root.embedded.EmbeddedCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leaf whose link is cut without closing anything (as a pulled cable or a stopped host does) is
 * given up within {@link LinkLiveness#SILENT_AFTER} and a few checks: its connections close with a
 * reason that says so, and searches go on over its replicas. Before the pings, such a leaf stayed
 * UP for as long as TCP kept retransmitting (many minutes), so its partitions were never copied
 * elsewhere. Real leaves over loopback, each behind a relay the test can cut.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SilentLeafTest {
    @Test
    void aLeafBehindACutLinkIsGivenUpAndSearchesGoOn(@TempDir Path data) throws Exception {
        List<LinkRelay> relays = new ArrayList<>();
        try (EmbeddedCluster cluster = EmbeddedCluster.builder(data)
                .documents("silent", IndexConfig.defaults(), TestData.documents(5, 200))
                .leaves(2).partitions(4).replicas(2).start()) {
            for (LeafServer leaf : cluster.leaves()) {
                relays.add(new LinkRelay(leaf.port()));
            }
            ClusterConfig config = ClusterConfig.of(cluster.manifest(), relays.stream().map(LinkRelay::address).toList(), 2)
                    .withClusterSecret(cluster.root().cluster().config().clusterSecret());
            try (RootServer root = RootServer.start(config, "127.0.0.1", 0, Duration.ofSeconds(30))) {
                LeafStatus cut = root.cluster().leaf(1);
                Await.until("both leaves up", Duration.ofSeconds(30),
                        () -> root.cluster().leaves().stream().allMatch(leaf -> leaf.state() == LeafStatus.State.UP));
                // Quiet for longer than the silence allowed: a leaf that answers pings stays up.
                Thread.sleep(LinkLiveness.SILENT_AFTER.plusSeconds(1).toMillis());
                assertThat(cut.state()).as("an idle leaf that answers pings").isEqualTo(LeafStatus.State.UP);

                relays.get(1).stop();
                Await.until(() -> "leaf 1 given up (state " + cut.state() + ", last error " + cut.lastError() + ")",
                        LinkLiveness.SILENT_AFTER.plusSeconds(10), () -> cut.state() == LeafStatus.State.DOWN);
                assertThat(cut.lastError()).contains("pings unanswered");
                // Not given up early: the silence the connection measured from the last frame it heard.
                // (Timed from the cut instead, it is SILENT_AFTER less the time since the last pong,
                // which a loaded machine that delays the pings makes as long as it likes.)
                Matcher silence = Pattern.compile("no frame from leaf for (\\d+) ms").matcher(cut.lastError());
                assertThat(silence.find()).as("the silence in " + cut.lastError()).isTrue();
                assertThat(Long.parseLong(silence.group(1))).isGreaterThanOrEqualTo(LinkLiveness.SILENT_AFTER.toMillis());

                SearchResult result = root.client().search(SearchRequest.builder("alpha OR bravo").k(10).cache(false)
                        .timeoutMillis(10_000).build()).join();
                assertThat(result.tainted()).as("the other replica answers every partition").isFalse();
                assertThat(result.coverage().partitionsAnswered()).isEqualTo(4);
            }
        } finally {
            for (LinkRelay relay : relays) {
                relay.close();
            }
        }
    }
}
