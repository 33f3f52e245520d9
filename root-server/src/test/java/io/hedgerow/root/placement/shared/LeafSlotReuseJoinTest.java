package io.hedgerow.root.placement.shared;

import static io.hedgerow.root.placement.shared.ZkRoots.register;
import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.HedgeMode;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.coordination.CoordinationSettings;
import io.hedgerow.coordination.EmbeddedZooKeeper;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.server.LeafMembership;
import io.hedgerow.leaf.server.LeafServer;
import io.hedgerow.root.Await;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cluster.LeafAddress;
import io.hedgerow.root.cluster.PartitionAssignment;
import io.hedgerow.root.embedded.EmbeddedCluster;
import io.hedgerow.root.http.HttpSettings;
import io.hedgerow.root.placement.PlacementSettings;
import io.hedgerow.root.write.WriteSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A root of three leaf slots ({@code --leaf-slots 3}) and two listed leaves: a third leaf joins, takes
 * copies, then leaves for good (as a leaf restarted on another port leaves its old address behind); a
 * fourth leaf, at another address, registers and finds no slot vacant. The placement gives up the gone
 * leaf's copies (its partitions are fully replicated without it), the write path drops its replicas, and
 * the fourth leaf takes the slot over, is dialled, gets copies and answers, under meters labelled by its
 * own address. Real ZooKeeper (embedded), real leaves with real Lucene indexes on loopback. Before, the
 * slot kept the third leaf's address for the root's life and the fourth was turned away for good.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class LeafSlotReuseJoinTest {
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final String CLUSTER = "reuse";
    private static final PlacementSettings PLACEMENT = PlacementSettings.defaults().withGrace(Duration.ofMillis(500))
            .withMaxOpening(4);

    private static SearchResult search(RootServer root) {
        return root.client().search(SearchRequest.builder("alpha OR bravo OR charlie").k(10).hedge(HedgeMode.OFF)
                .cache(false).build()).join();
    }

    private static boolean holdsCopies(RootServer root, int slot, int atLeast) {
        return root.cluster().assignment().partitionsOf(slot).length >= atLeast
                && root.cluster().placementReport().copies().stream()
                        .noneMatch(c -> c.state() != io.hedgerow.root.placement.Placement.CopyState.SERVING);
    }

    @Test
    void aLeafThatFindsNoVacantSlotTakesOverTheSlotOfALeafGoneForGood(@TempDir Path data) throws Exception {
        List<LeafMembership> registered = new ArrayList<>();
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(EmbeddedZooKeeper.Config.local(0, data.resolve("zk")));
                EmbeddedCluster cluster = EmbeddedCluster.builder(data)
                        .documents("reuse", IndexConfig.defaults(), TestData.documents(5, 200))
                        .leaves(4).partitions(8).replicas(2).placement(PlacementSettings.off()).start()) {
            // Only the root under test talks to the leaves: the embedded root would tell them its fixed assignment.
            cluster.root().close();
            CoordinationSettings direct = CoordinationSettings.of(zk.connectString(), CLUSTER);
            LeafServer third = cluster.leaves().get(2);
            LeafServer fourth = cluster.leaves().get(3);
            ClusterConfig c = cluster.root().cluster().config();
            ClusterConfig config = c.withLeaves(List.of(cluster.leaves().get(0).address(),
                    cluster.leaves().get(1).address())).withLeafSlots(3).withPlacement(PLACEMENT);
            for (int i = 0; i < 3; i++) {
                registered.add(register(direct, cluster.leaves().get(i), i));
            }
            try (RootServer root = RootServer.start(config, HttpSettings.defaults("127.0.0.1", 0), Duration.ofSeconds(10),
                    null, ClusterState.randomRootId(), WriteSettings.defaults().withCoordination(direct))) {
                Await.until(() -> "the third leaf fills slot 2 and holds copies: " + root.cluster().assignment(),
                        PATIENCE, () -> root.cluster().slotOf(LeafAddress.parse(third.address())) == 2
                                && root.cluster().leaf(2).readyConnections() > 0 && holdsCopies(root, 2, 4));
                assertThat(root.metrics().scrape()).contains("hedgerow_leaf_up{leaf=\"" + third.address() + "\"}");

                // The third leaf leaves for good; the fourth registers at another address.
                registered.remove(2).close();
                third.close();
                registered.add(register(direct, fourth, 3));

                Await.until(() -> "the fourth leaf takes slot 2 over and holds copies: " + root.cluster().assignment()
                        + ", slot 2 " + root.cluster().leaf(2).name() + ", " + root.cluster().slotsFull(), PATIENCE,
                        () -> root.cluster().slotOf(LeafAddress.parse(fourth.address())) == 2
                                && root.cluster().leaf(2).readyConnections() > 0 && holdsCopies(root, 2, 4));
                assertThat(root.cluster().slotOf(LeafAddress.parse(third.address()))).isEqualTo(-1);
                PartitionAssignment serving = root.cluster().assignment();
                for (int p = 0; p < serving.partitions(); p++) {
                    assertThat(serving.replicasOf(p)).as("partition %d keeps two copies", p).hasSize(2);
                }
                long before = fourth.servedLoad().totals().values().stream().mapToLong(Long::longValue).sum();
                Await.until("the fourth leaf answers sub-requests", PATIENCE, () -> {
                    for (int i = 0; i < 20; i++) {
                        assertThat(search(root).coverage().complete()).isTrue();
                    }
                    return fourth.servedLoad().totals().values().stream().mapToLong(Long::longValue).sum() > before;
                });
                String scrape = root.metrics().scrape();
                assertThat(scrape).contains("hedgerow_leaf_up{leaf=\"" + fourth.address() + "\"}")
                        .as("the gone leaf's meters removed").doesNotContain(third.address());
            } finally {
                registered.forEach(LeafMembership::close);
            }
        }
    }
}
