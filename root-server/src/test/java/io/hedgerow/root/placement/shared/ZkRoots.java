package io.hedgerow.root.placement.shared;

import io.hedgerow.coordination.CoordinationSettings;
import io.hedgerow.coordination.EmbeddedZooKeeper;
import io.hedgerow.coordination.NodeId;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.server.LeafMembership;
import io.hedgerow.leaf.server.LeafServer;
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
import java.util.stream.Collectors;

/**
 * Roots and leaf registrations on one embedded ZooKeeper, for the shared-placement and membership tests
 * (review42 finding 11.3: each of them had its own copy): a root with {@code --zk}, a leaf registered
 * under a node id, and each partition's serving copies by leaf address, what roots must agree on.
 */
final class ZkRoots {
    /** How long a root waits for its leaves at start. */
    static final Duration READY = Duration.ofSeconds(10);

    private ZkRoots() {
    }

    /** A ZooKeeper of the test's own, its data in {@code data}/zk. */
    static EmbeddedZooKeeper zooKeeper(Path data) throws Exception {
        return EmbeddedZooKeeper.start(EmbeddedZooKeeper.Config.local(0, data.resolve("zk")));
    }

    /**
     * Real leaves on loopback serving a small index named {@code index} (2 replicas), with the
     * embedded root's placement off: the roots under test place and route.
     */
    static EmbeddedCluster leaves(Path data, String index, int leaves, int partitions) throws Exception {
        return EmbeddedCluster.builder(data).documents(index, IndexConfig.defaults(), TestData.documents(5, 200))
                .leaves(leaves).partitions(partitions).replicas(2).placement(PlacementSettings.off()).start();
    }

    /** A root of {@code config} (its placement as set there) on {@code zk}, in cluster {@code cluster}. */
    static RootServer root(ClusterConfig config, EmbeddedZooKeeper zk, String cluster) throws Exception {
        return RootServer.start(config, HttpSettings.defaults("127.0.0.1", 0), READY, null,
                ClusterState.randomRootId(), WriteSettings.defaults()
                        .withCoordination(CoordinationSettings.of(zk.connectString(), cluster)));
    }

    /** Registers {@code leaf} as node {@code leaf-<index>} at its own address. */
    static LeafMembership register(CoordinationSettings settings, LeafServer leaf, int index) throws Exception {
        return register(settings, leaf, "leaf-" + index, leaf.address());
    }

    /** Registers {@code leaf} as node {@code node} at {@code address} (another spelling of its own, say). */
    static LeafMembership register(CoordinationSettings settings, LeafServer leaf, String node, String address)
            throws Exception {
        return LeafMembership.start(settings, NodeId.of(node), address, leaf.servedLoad()::totals,
                Duration.ofMillis(200));
    }

    /** The leaves' memberships, closed before ZooKeeper is (a session closing against no server waits). */
    static final class Registrations extends ArrayList<LeafMembership> implements AutoCloseable {
        @Override
        public void close() {
            forEach(LeafMembership::close);
        }
    }

    /** Each partition's serving copies, by the address of their leaf: what roots must agree on. */
    static List<Set<String>> servingAddresses(RootServer root) {
        PartitionAssignment serving = root.cluster().assignment();
        List<Set<String>> out = new ArrayList<>();
        for (int p = 0; p < serving.partitions(); p++) {
            out.add(Arrays.stream(serving.replicasOf(p)).mapToObj(leaf -> root.cluster().leaf(leaf).name())
                    .collect(Collectors.toCollection(TreeSet::new)));
        }
        return out;
    }
}
