package io.hedgerow.root.placement.shared;

import static io.hedgerow.root.placement.shared.ZkRoots.register;
import static io.hedgerow.root.placement.shared.ZkRoots.servingAddresses;
import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.HedgeMode;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.coordination.CoordinationClient;
import io.hedgerow.coordination.CoordinationException;
import io.hedgerow.coordination.CoordinationSettings;
import io.hedgerow.coordination.EmbeddedZooKeeper;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.server.LeafServer;
import io.hedgerow.root.Await;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.cluster.LeafAddress;
import io.hedgerow.root.cluster.PartitionAssignment;
import io.hedgerow.root.cluster.RegisteredLeaves;
import io.hedgerow.root.embedded.EmbeddedCluster;
import io.hedgerow.root.placement.PlacementSettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Leaves that join at run time, through ZooKeeper ({@code root --zk} without {@code --leaves}, and
 * {@code --leaf-slots}): real ZooKeeper (embedded), real leaves with real Lucene indexes on loopback. A
 * root that starts before any leaf registered serves the first leaves that do; a third leaf registered
 * later takes a vacant slot, gets copies moved onto it and answers searches; a second root that lists
 * the leaves in another order, and numbers its slots otherwise, routes every partition to the same
 * leaves as the first (the stored plan names leaves by address); the joined leaf leaving for good has
 * its copies placed on the others.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class LeafJoinTest {
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final String CLUSTER = "join";
    private static final int SLOTS = 8;
    private static final PlacementSettings PLACEMENT = PlacementSettings.defaults().withGrace(Duration.ofMillis(500))
            .withMaxOpening(4);

    private static EmbeddedCluster leaves(Path data) throws Exception {
        EmbeddedCluster cluster = EmbeddedCluster.builder(data)
                .documents("join", IndexConfig.defaults(), TestData.documents(5, 200))
                .leaves(3).partitions(8).replicas(2).placement(PlacementSettings.off())
                .start();
        // Only the roots under test talk to the leaves: the embedded root would tell them its fixed assignment.
        cluster.root().close();
        return cluster;
    }

    private static SearchResult search(RootServer root) {
        return root.client().search(SearchRequest.builder("alpha OR bravo OR charlie").k(10).hedge(HedgeMode.OFF)
                .cache(false).build()).join();
    }

    private static RootServer root(ClusterConfig config, EmbeddedZooKeeper zk) throws Exception {
        return ZkRoots.root(config.withPlacement(PLACEMENT), zk, CLUSTER);
    }

    /** The embedded root's settings (index, secret) with {@code leaves} in the first of {@link #SLOTS} slots. */
    private static ClusterConfig withLeaves(ClusterConfig c, List<String> leaves) {
        return c.withLeaves(leaves).withLeafSlots(SLOTS);
    }

    private static long served(LeafServer leaf) {
        return leaf.servedLoad().totals().values().stream().mapToLong(Long::longValue).sum();
    }

    private static String storedJson(EmbeddedZooKeeper zk) throws Exception {
        try (CoordinationClient client = CoordinationClient.connect(CoordinationSettings.of(zk.connectString(),
                CLUSTER))) {
            return new String(client.curator().getData().forPath(client.paths().placement()), StandardCharsets.UTF_8);
        }
    }

    @Test
    void aRootWithoutLeavesServesThoseThatRegisterAndAThirdLeafJoiningLaterTakesCopiesAndAnswers(@TempDir Path data)
            throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(EmbeddedZooKeeper.Config.local(0, data.resolve("zk")));
                EmbeddedCluster cluster = leaves(data);
                ZkRoots.Registrations registered = new ZkRoots.Registrations()) {
            CoordinationSettings direct = CoordinationSettings.of(zk.connectString(), CLUSTER);
            LeafServer third = cluster.leaves().get(2);
            ClusterConfig embedded = cluster.root().cluster().config();

            // As `root --zk` without --leaves starts: it waits for a partition's copies' worth of leaves.
            CompletableFuture<List<String>> first = CompletableFuture.supplyAsync(() -> {
                try {
                    return RegisteredLeaves.await(direct, 2, PATIENCE);
                } catch (CoordinationException | InterruptedException e) {
                    throw new CompletionException(e);
                }
            });
            registered.add(register(direct, cluster.leaves().get(0), 0));
            registered.add(register(direct, cluster.leaves().get(1), 1));
            List<String> found = first.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            assertThat(found).containsExactly(cluster.leaves().get(0).address(), cluster.leaves().get(1).address());

            ClusterConfig config = withLeaves(embedded, found);
            try (RootServer root = root(config, zk)) {
                Await.until("the root leads placement and reaches both leaves", PATIENCE,
                        () -> root.sharedPlacement().leadership().leads() && root.cluster().allLeavesUp());
                assertThat(root.cluster().leaf(2).vacant()).isTrue();
                assertThat(search(root).coverage().complete()).as("every partition answered by the first two").isTrue();
                long thirdBefore = served(third);

                registered.add(register(direct, third, 2));
                Await.until(() -> "the third leaf fills slot 2 and is up: " + root.cluster().leaf(2).name(), PATIENCE,
                        () -> root.cluster().slotOf(LeafAddress.parse(third.address())) == 2
                                && root.cluster().leaf(2).readyConnections() > 0);
                // Its share: 16 copies over 3 leaves, 5 each at least, moved one at a time from the fuller leaves.
                Await.until(() -> "copies moved onto the third leaf: " + root.cluster().assignment(), PATIENCE,
                        () -> root.cluster().assignment().partitionsOf(2).length >= 5
                                && root.cluster().placementReport().copies().stream()
                                        .noneMatch(c -> c.state() != io.hedgerow.root.placement.Placement.CopyState.SERVING));
                assertThat(third.openPartitions()).containsAll(Arrays.stream(root.cluster().assignment().partitionsOf(2))
                        .boxed().toList());
                for (int p = 0; p < 8; p++) {
                    assertThat(root.cluster().assignment().replicasOf(p)).as("partition %d keeps two copies", p)
                            .hasSize(2);
                }
                Await.until("the third leaf answers sub-requests", PATIENCE, () -> {
                    for (int i = 0; i < 20; i++) {
                        assertThat(search(root).coverage().complete()).isTrue();
                    }
                    return served(third) > thirdBefore;
                });
                assertThat(storedJson(zk)).as("the stored plan names the joined leaf by address")
                        .contains("\"address\":\"" + third.address() + "\"");

                // A second root lists the first two leaves the other way round: its slots differ, its routing does not.
                ClusterConfig reversed = withLeaves(embedded, List.of(found.get(1), found.get(0)));
                try (RootServer second = root(reversed, zk)) {
                    Await.until(() -> "the second root routes to the same leaves as the leader: "
                            + servingAddresses(second) + " vs " + servingAddresses(root), PATIENCE,
                            () -> !second.sharedPlacement().leadership().leads()
                                    && servingAddresses(second).equals(servingAddresses(root)));
                    assertThat(second.cluster().leaf(0).name()).isEqualTo(found.get(1));
                    assertThat(second.cluster().slotOf(LeafAddress.parse(third.address()))).isEqualTo(2);
                    Await.until("the second root reaches all three leaves", PATIENCE,
                            () -> second.cluster().allLeavesUp() && second.cluster().filledSlots() == 3);
                    assertThat(search(second).coverage().complete()).isTrue();
                }

                // The joined leaf leaves for good: like any leaf gone, its copies are placed on the others.
                registered.remove(2).close();
                third.close();
                Await.until(() -> "the joined leaf's copies re-placed: " + root.cluster().assignment(), PATIENCE,
                        () -> {
                            PartitionAssignment now = root.cluster().assignment();
                            for (int p = 0; p < now.partitions(); p++) {
                                if (Arrays.stream(now.replicasOf(p)).filter(leaf -> leaf != 2).count() < 2) {
                                    return false;
                                }
                            }
                            return true;
                        });
                assertThat(root.cluster().placementReport().goneLeaves()).containsExactly(2);
                assertThat(search(root).coverage().complete()).isTrue();
            }
        }
    }
}
