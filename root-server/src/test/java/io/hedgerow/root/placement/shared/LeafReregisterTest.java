package io.hedgerow.root.placement.shared;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.coordination.CoordinationSettings;
import io.hedgerow.coordination.EmbeddedZooKeeper;
import io.hedgerow.leaf.server.LeafMembership;
import io.hedgerow.root.Await;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.cluster.MembershipView;
import io.hedgerow.root.embedded.EmbeddedCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leaf restarted at the same address under another node id registers while its old znode lingers
 * (that session has not expired yet): real ZooKeeper (embedded), real leaves, a root with {@code --zk}.
 * The root's membership names the newest registration at once, and the node still registered there when
 * the one it names leaves, so the HelloAck node-id check ({@code LeafIdentity}) never refuses the process that
 * listens at the address now. Before, a slot kept naming its first node for as long as any node stayed
 * registered at the address, which refused the restarted leaf until every old session had ended.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class LeafReregisterTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final String CLUSTER = "reregister";

    private static MembershipView.Member member(RootServer root, int leaf) {
        MembershipView view = root.cluster().membership();
        return view == null ? MembershipView.empty(1, 1).leaves().get(0) : view.leaves().get(leaf);
    }

    private static boolean registeredAs(RootServer root, int leaf, String node) {
        MembershipView.Member member = member(root, leaf);
        return member.state() == MembershipView.State.REGISTERED && member.node() != null
                && member.node().value().equals(node);
    }

    @Test
    void theNewestRegistrationAtAnAddressIsTheLeafThereAndTheOtherStaysWhenOneLeaves(@TempDir Path data)
            throws Exception {
        try (EmbeddedZooKeeper zk = ZkRoots.zooKeeper(data);
                EmbeddedCluster cluster = ZkRoots.leaves(data, "reregister", 2, 2)) {
            CoordinationSettings settings = CoordinationSettings.of(zk.connectString(), CLUSTER);
            cluster.root().close(); // only the root under test talks to the leaves
            try (RootServer root = ZkRoots.root(cluster.root().cluster().config(), zk, CLUSTER);
                    ZkRoots.Registrations registered = new ZkRoots.Registrations()) {
                registered.add(ZkRoots.register(settings, cluster.leaves().get(1), 1));
                LeafMembership old = ZkRoots.register(settings, cluster.leaves().get(0), 0);
                registered.add(old);
                Await.until("leaf 0 registered as leaf-0", PATIENCE, () -> registeredAs(root, 0, "leaf-0"));

                // The same address, another node id: the process restarted there, its old znode still alive.
                LeafMembership restarted = ZkRoots.register(settings, cluster.leaves().get(0), "leaf-0-restarted",
                        cluster.leaves().get(0).address());
                registered.add(restarted);
                Await.until(() -> "slot 0 names the newest registration: " + member(root, 0), PATIENCE,
                        () -> registeredAs(root, 0, "leaf-0-restarted"));

                // The newest leaves first (the order is a session's luck): the other node there is the leaf now.
                restarted.close();
                registered.remove(restarted);
                Await.until(() -> "slot 0 names the node still registered there: " + member(root, 0), PATIENCE,
                        () -> registeredAs(root, 0, "leaf-0"));

                old.close();
                registered.remove(old);
                Await.until(() -> "slot 0 gone once no node is registered there: " + member(root, 0), PATIENCE,
                        () -> member(root, 0).state() == MembershipView.State.GONE);
            }
        }
    }
}
