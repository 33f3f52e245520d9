package io.hedgerow.root.placement.shared;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.coordination.CoordinationSettings;
import io.hedgerow.coordination.EmbeddedZooKeeper;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.root.Await;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cluster.PartitionAssignment;
import io.hedgerow.root.embedded.EmbeddedCluster;
import io.hedgerow.root.http.HttpSettings;
import io.hedgerow.root.placement.PlacementSettings;
import io.hedgerow.root.write.WriteSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Roots that share a stored placement plan agree on which leaf holds what, however each numbers its
 * leaves: real ZooKeeper (embedded), three real leaves on loopback, two roots given the same leaves in
 * other orders. The plan names leaves by address; were it read by position, the follower would route
 * each partition to the leaves at the leader's positions in its own list (other leaves, some of which
 * do not hold the partition).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class PlanIdentityTest {
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final Duration READY = Duration.ofSeconds(10);

    private static RootServer root(ClusterConfig config, EmbeddedZooKeeper zk) throws Exception {
        return RootServer.start(config.withPlacement(PlacementSettings.defaults()), HttpSettings.defaults("127.0.0.1", 0),
                READY, null, ClusterState.randomRootId(), WriteSettings.defaults()
                        .withCoordination(CoordinationSettings.of(zk.connectString(), "identity")));
    }

    private static ClusterConfig withLeaves(ClusterConfig c, List<String> leaves) {
        return new ClusterConfig(c.indexName(), leaves, c.partitions(), c.replicas(), c.defaultTimeout(),
                c.maxTimeout(), c.ioThreads(), c.maxFrameBytes(), c.hedge(), c.tail(), c.index(), c.batchAdmission(),
                c.clusterSecret(), c.adaptation(), c.placement(), c.tlsTrust(), c.leafBatching());
    }

    /** Each partition's serving copies, by the address of their leaf. */
    private static List<Set<String>> servingAddresses(RootServer root) {
        PartitionAssignment serving = root.cluster().assignment();
        List<Set<String>> out = new ArrayList<>();
        for (int p = 0; p < serving.partitions(); p++) {
            out.add(Arrays.stream(serving.replicasOf(p)).mapToObj(leaf -> root.cluster().leaf(leaf).name())
                    .collect(Collectors.toCollection(TreeSet::new)));
        }
        return out;
    }

    @Test
    void aRootListingTheLeavesInAnotherOrderRoutesEveryPartitionToTheLeadersLeaves(@TempDir Path data)
            throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(EmbeddedZooKeeper.Config.local(0, data.resolve("zk")));
                EmbeddedCluster cluster = EmbeddedCluster.builder(data)
                        .documents("identity", IndexConfig.defaults(), TestData.documents(5, 200))
                        .leaves(3).partitions(6).replicas(2).placement(PlacementSettings.off())
                        .start()) {
            cluster.root().close(); // only the roots under test tell the leaves their targets
            ClusterConfig config = cluster.root().cluster().config();
            List<String> rotated = List.of(config.leaves().get(2), config.leaves().get(0), config.leaves().get(1));
            try (RootServer leader = root(config, zk)) {
                Await.until("the first root leads and stored its plan", PATIENCE,
                        () -> leader.sharedPlacement().leadership().leads()
                                && leader.sharedPlacement().leadership().storedVersion() >= 0);
                try (RootServer follower = root(withLeaves(config, rotated), zk)) {
                    Await.until(() -> "the second root follows the stored plan: "
                            + follower.sharedPlacement().leadership(), PATIENCE,
                            () -> !follower.sharedPlacement().leadership().leads()
                                    && follower.sharedPlacement().leadership().source().contains("stored"));
                    assertThat(follower.cluster().leaf(0).name()).as("the follower numbers the leaves otherwise")
                            .isEqualTo(config.leaves().get(2));
                    assertThat(servingAddresses(follower)).as("partition by partition, the same leaves as the leader")
                            .isEqualTo(servingAddresses(leader));
                }
            }
        }
    }
}
