package io.hedgerow.root.placement.shared;

import static io.hedgerow.root.placement.shared.ZkRoots.register;
import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.HedgeMode;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.coordination.CoordinationSettings;
import io.hedgerow.coordination.EmbeddedZooKeeper;
import io.hedgerow.coordination.NodeId;
import io.hedgerow.leaf.server.LeafServer;
import io.hedgerow.root.Await;
import io.hedgerow.root.LinkRelay;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.cluster.MembershipView;
import io.hedgerow.root.embedded.EmbeddedCluster;
import io.hedgerow.root.placement.PlacementSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leaf that {@code --leaves} names {@code 127.0.0.1:P} and that registers in ZooKeeper as
 * {@code localhost:P} (review42 finding 1): real ZooKeeper (embedded), two real leaves with real Lucene
 * indexes on loopback, a root with {@code --zk} and spare leaf slots. The registration is matched to the
 * listed leaf's slot (the same address and port once resolved); no second slot is filled. Before, it
 * took a vacant slot, the root dialled the same leaf again, and that slot's empty assignment closed every
 * partition the leaf held.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class LeafSpellingJoinTest {
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final String CLUSTER = "spelling";

    private static long registered(RootServer root) {
        MembershipView view = root.cluster().membership();
        return view == null ? 0 : view.leaves().stream()
                .filter(member -> member.state() == MembershipView.State.REGISTERED).count();
    }

    @Test
    void aLeafRegisteredAsLocalhostKeepsTheSlotItsLoopbackAddressHoldsAndItsPartitions(@TempDir Path data)
            throws Exception {
        try (EmbeddedZooKeeper zk = ZkRoots.zooKeeper(data);
                EmbeddedCluster cluster = ZkRoots.leaves(data, "spelling", 2, 4);
                ZkRoots.Registrations registrations = new ZkRoots.Registrations()) {
            cluster.root().close(); // only the root under test tells the leaves their targets
            CoordinationSettings direct = CoordinationSettings.of(zk.connectString(), CLUSTER);
            LeafServer first = cluster.leaves().get(0);
            assertThat(first.address()).startsWith("127.0.0.1:");
            String localhost = "localhost" + first.address().substring(first.address().lastIndexOf(':'));
            registrations.add(register(direct, first, "leaf-0", localhost));
            registrations.add(register(direct, cluster.leaves().get(1), 1));
            ClusterConfig config = cluster.root().cluster().config().withLeafSlots(4)
                    .withPlacement(PlacementSettings.defaults());

            try (RootServer root = ZkRoots.root(config, zk, CLUSTER)) {
                // Both registrations placed, and every slot the root dials is up (a second slot for the first
                // leaf would be dialled and answered too, its empty assignment applied by then).
                Await.until(() -> "both leaves registered and every filled slot up: " + root.cluster().membership(),
                        PATIENCE, () -> registered(root) == 2 && root.cluster().allLeavesUp());

                assertThat(root.cluster().filledSlots()).as("one slot per leaf").isEqualTo(2);
                MembershipView.Member slot0 = root.cluster().membership().leaves().get(0);
                assertThat(slot0.state()).isEqualTo(MembershipView.State.REGISTERED);
                assertThat(slot0.node()).isEqualTo(NodeId.of("leaf-0"));
                int[] held = root.cluster().assignment().partitionsOf(0);
                assertThat(held).isNotEmpty();
                assertThat(first.openPartitions()).as("the leaf keeps its partitions")
                        .containsAll(Arrays.stream(held).boxed().toList());
                assertThat(root.client().search(SearchRequest.builder("alpha OR bravo").k(10).hedge(HedgeMode.OFF)
                        .cache(false).build()).join().coverage().complete()).isTrue();
            }
        }
    }

    /**
     * Review42b finding 1: the root starts with the leaf's registration already in ZooKeeper (the membership
     * cache's first snapshot, delivered before the fan-out dials anything), and {@code --leaves} names the
     * leaf by an address its registered one does not resolve to (a relay's port). Membership fills a
     * second slot for the registration; the listed slot's handshake names the same node, so the
     * registration moves to the listed slot and the second slot is vacant again, never used. Before, both
     * slots were dialled and served, and the second one's empty assignment closed the leaf's partitions.
     */
    @Test
    void aLeafListedByAnotherAddressThanItRegisteredAtBeforeTheRootStartedFillsOneSlot(@TempDir Path data)
            throws Exception {
        try (EmbeddedZooKeeper zk = ZkRoots.zooKeeper(data);
                EmbeddedCluster cluster = ZkRoots.leaves(data, "spelling", 2, 4);
                LinkRelay relay = new LinkRelay(cluster.leaves().get(0).port());
                ZkRoots.Registrations registrations = new ZkRoots.Registrations()) {
            cluster.root().close(); // only the root under test tells the leaves their targets
            CoordinationSettings direct = CoordinationSettings.of(zk.connectString(), CLUSTER);
            LeafServer first = cluster.leaves().get(0);
            LeafServer second = cluster.leaves().get(1);
            NodeId firstNode = first.announceNodeId(); // as a leaf started with --zk does
            registrations.add(register(direct, first, firstNode.value(), first.address()));
            registrations.add(register(direct, second, second.announceNodeId().value(), second.address()));
            ClusterConfig config = cluster.root().cluster().config()
                    .withLeaves(List.of(relay.address(), second.address())).withLeafSlots(4)
                    .withPlacement(PlacementSettings.defaults());

            try (RootServer root = ZkRoots.root(config, zk, CLUSTER)) {
                Await.until(() -> "both leaves registered, one slot each, every filled slot up: filled "
                        + root.cluster().filledSlots() + ", " + root.cluster().membership(), PATIENCE,
                        () -> registered(root) == 2 && root.cluster().filledSlots() == 2
                                && root.cluster().allLeavesUp());

                MembershipView.Member slot0 = root.cluster().membership().leaves().get(0);
                assertThat(slot0.state()).isEqualTo(MembershipView.State.REGISTERED);
                assertThat(slot0.node()).as("the registration moved to the listed slot").isEqualTo(firstNode);
                assertThat(root.cluster().leaf(0).address()).hasToString(relay.address());
                int[] held = root.cluster().assignment().partitionsOf(0);
                assertThat(held).isNotEmpty();
                assertThat(first.openPartitions()).as("the leaf keeps its partitions")
                        .containsAll(Arrays.stream(held).boxed().toList());
                assertThat(root.client().search(SearchRequest.builder("alpha OR bravo").k(10).hedge(HedgeMode.OFF)
                        .cache(false).build()).join().coverage().complete()).isTrue();
                assertThat(root.cluster().filledSlots()).as("still one slot per leaf").isEqualTo(2);
                assertThat(first.openPartitions()).containsAll(Arrays.stream(held).boxed().toList());
            }
        }
    }
}
