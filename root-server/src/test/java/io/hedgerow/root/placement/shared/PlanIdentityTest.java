package io.hedgerow.root.placement.shared;

import static io.hedgerow.root.placement.shared.ZkRoots.servingAddresses;
import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.coordination.EmbeddedZooKeeper;
import io.hedgerow.root.Await;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.embedded.EmbeddedCluster;
import io.hedgerow.root.placement.PlacementSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
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

    private static RootServer root(ClusterConfig config, EmbeddedZooKeeper zk) throws Exception {
        return ZkRoots.root(config.withPlacement(PlacementSettings.defaults()), zk, "identity");
    }


    @Test
    void aRootListingTheLeavesInAnotherOrderRoutesEveryPartitionToTheLeadersLeaves(@TempDir Path data)
            throws Exception {
        try (EmbeddedZooKeeper zk = ZkRoots.zooKeeper(data);
                EmbeddedCluster cluster = ZkRoots.leaves(data, "identity", 3, 6)) {
            cluster.root().close(); // only the roots under test tell the leaves their targets
            ClusterConfig config = cluster.root().cluster().config();
            List<String> rotated = List.of(config.leaves().get(2), config.leaves().get(0), config.leaves().get(1));
            try (RootServer leader = root(config, zk)) {
                Await.until("the first root leads and stored its plan", PATIENCE,
                        () -> leader.sharedPlacement().leadership().leads()
                                && leader.sharedPlacement().leadership().storedVersion() >= 0);
                try (RootServer follower = root(config.withLeaves(rotated), zk)) {
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
