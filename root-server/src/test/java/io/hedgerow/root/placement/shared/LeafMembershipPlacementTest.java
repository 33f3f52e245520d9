package io.hedgerow.root.placement.shared;

import static io.hedgerow.root.placement.shared.ZkRoots.register;
import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.HedgeMode;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.coordination.CoordinationClient;
import io.hedgerow.coordination.CoordinationSettings;
import io.hedgerow.coordination.EmbeddedZooKeeper;
import io.hedgerow.coordination.LeafRegistration;
import io.hedgerow.coordination.NodeId;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.root.Await;
import io.hedgerow.root.LinkRelay;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.cluster.MembershipView;
import io.hedgerow.root.cluster.PartitionAssignment;
import io.hedgerow.root.embedded.EmbeddedCluster;
import io.hedgerow.root.placement.PlacementSettings;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leaves' membership in ZooKeeper as the placement leader's second source of liveness and its
 * source of load: real ZooKeeper (embedded), real leaves on loopback, a root with {@code --zk}. A leaf
 * whose session expires is lost to the placement though the root's connections to it stay up; a leaf
 * that never registers (no {@code --zk}) is served as before; the load the leaves publish, from
 * another root's searches, reaches the leader's placement.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class LeafMembershipPlacementTest {
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final String CLUSTER = "members";
    /** The lost leaf's session: short, so the test does not wait the default 4 s for it to expire. */
    private static final Duration SHORT_SESSION = Duration.ofSeconds(2);

    private static EmbeddedCluster leaves(Path data, boolean keepRoot) throws Exception {
        EmbeddedCluster cluster = EmbeddedCluster.builder(data)
                .documents("members", IndexConfig.defaults(), TestData.documents(5, 200))
                .leaves(4).partitions(8).replicas(2).placement(PlacementSettings.off())
                .start();
        if (!keepRoot) {
            // Only the root under test talks to the leaves: the embedded root would tell them the fixed
            // assignment again whenever it reconnected.
            cluster.root().close();
        }
        return cluster;
    }

    private static RootServer root(ClusterConfig config, EmbeddedZooKeeper zk, PlacementSettings placement)
            throws Exception {
        return ZkRoots.root(config.withPlacement(placement), zk, CLUSTER);
    }

    private static int port(String connectString) {
        return Integer.parseInt(connectString.substring(connectString.lastIndexOf(':') + 1));
    }

    private static MembershipView.State state(RootServer root, int leaf) {
        MembershipView view = root.cluster().membership();
        return view == null ? null : view.leaves().get(leaf).state();
    }

    private static boolean fullyReplicatedWithout(PartitionAssignment assignment, int lost) {
        for (int p = 0; p < assignment.partitions(); p++) {
            if (Arrays.stream(assignment.replicasOf(p)).filter(leaf -> leaf != lost).count() < 2) {
                return false;
            }
        }
        return true;
    }

    private static String clusterJson(RootServer root) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                "http://127.0.0.1:" + root.httpPort() + "/cluster")).build(), HttpResponse.BodyHandlers.ofString())
                .body();
    }

    @Test
    void aLeafWhoseSessionExpiresIsLostToTheLeaderWhileItsConnectionsStayUpAndAnUnregisteredLeafIsNot(
            @TempDir Path data) throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(EmbeddedZooKeeper.Config.local(0, data.resolve("zk")));
                EmbeddedCluster cluster = leaves(data, false);
                LinkRelay zkLink = new LinkRelay(port(zk.connectString()));
                ZkRoots.Registrations registered = new ZkRoots.Registrations()) {
            CoordinationSettings direct = CoordinationSettings.of(zk.connectString(), CLUSTER);
            // Leaves 0 and 1 register directly; leaf 2 runs without --zk; leaf 3's session goes through
            // a link the test cuts, as a SIGKILL or a long pause would end it (no goodbye to ZooKeeper).
            registered.add(register(direct, cluster.leaves().get(0), 0));
            registered.add(register(direct, cluster.leaves().get(1), 1));
            registered.add(register(CoordinationSettings.of(zkLink.address(), CLUSTER)
                    .withSessionTimeout(SHORT_SESSION), cluster.leaves().get(3), 3));
            ClusterConfig config = cluster.root().cluster().config();
            PartitionAssignment start = config.assignment();
            PlacementSettings placement = PlacementSettings.defaults().withGrace(Duration.ofMillis(500))
                    .withMaxOpening(4);
            try (RootServer root = root(config, zk, placement)) {
                Await.until("the root leads placement and sees leaves 0, 1 and 3 registered", PATIENCE,
                        () -> root.sharedPlacement().leadership().leads()
                                && state(root, 0) == MembershipView.State.REGISTERED
                                && state(root, 1) == MembershipView.State.REGISTERED
                                && state(root, 3) == MembershipView.State.REGISTERED
                                && root.cluster().allLeavesUp());
                assertThat(state(root, 2)).isEqualTo(MembershipView.State.NOT_REGISTERED);

                zkLink.stop();
                long cutAt = System.nanoTime();

                Await.until(() -> "leaf 3's partitions re-replicated: " + root.cluster().membership(), PATIENCE,
                        () -> fullyReplicatedWithout(root.cluster().assignment(), 3));
                System.out.printf("leaf 3 gone from membership and re-replicated %d ms after its ZooKeeper link was"
                        + " cut (session timeout %d ms, grace 500 ms)%n",
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cutAt), SHORT_SESSION.toMillis());
                assertThat(state(root, 3)).isEqualTo(MembershipView.State.GONE);
                assertThat(root.cluster().leaf(3).readyConnections())
                        .as("the root's connections to leaf 3 never noticed").isPositive();
                assertThat(root.cluster().placementReport().reReplications())
                        .as("leaf 3's copies only: leaf 2, never registered, is not lost")
                        .isEqualTo(start.partitionsOf(3).length);
                assertThat(root.cluster().placementReport().goneLeaves()).containsExactly(3);
                String json = clusterJson(root);
                assertThat(json).contains("\"state\":\"gone\",\"node\":\"leaf-3\"")
                        .contains("\"state\":\"not registered\"")
                        .contains("\"state\":\"registered\",\"node\":\"leaf-0\"");
            }
        }
    }

    @Test
    void theLeadersPlacementReadsTheLoadTheLeavesPublishFromAnotherRootsSearches(@TempDir Path data)
            throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(EmbeddedZooKeeper.Config.local(0, data.resolve("zk")));
                EmbeddedCluster cluster = leaves(data, true);
                ZkRoots.Registrations registered = new ZkRoots.Registrations()) {
            CoordinationSettings direct = CoordinationSettings.of(zk.connectString(), CLUSTER);
            for (int leaf = 0; leaf < 4; leaf++) {
                registered.add(register(direct, cluster.leaves().get(leaf), leaf));
            }
            ClusterConfig config = cluster.root().cluster().config();
            // Load is read only by the load controllers: selective replication on (an even load makes
            // no partition hot).
            PlacementSettings placement = PlacementSettings.off().withSelectiveReplication(true);
            try (RootServer leader = root(config, zk, placement);
                    CoordinationClient stranger = CoordinationClient.connect(direct)) {
                Await.until("the root leads placement", PATIENCE, () -> leader.sharedPlacement().leadership().leads());
                // A leaf registered at an address none of --leaves names: shown, not routed to.
                LeafRegistration.register(stranger, NodeId.of("elsewhere"), "10.9.9.9:9300", PATIENCE);

                // Every search through the other root (the embedded one, without --zk): the leader sees none.
                Await.until(() -> "the leader's placement reads load published by the leaves: "
                        + Arrays.toString(leader.sharedPlacement().partitionLoad()), PATIENCE, () -> {
                    for (int i = 0; i < 20; i++) {
                        cluster.client().search(SearchRequest.builder("alpha OR bravo OR charlie").k(10)
                                .hedge(HedgeMode.OFF).cache(false).build()).join();
                    }
                    double[] load = leader.sharedPlacement().partitionLoad();
                    return load != null && Arrays.stream(load).sum() > 0;
                });
                assertThat(Arrays.stream(leader.cluster().partitionLoad().totals()).sum())
                        .as("the leader sent no search itself").isZero();
                String json = clusterJson(leader);
                assertThat(json).contains("\"placement_load\":\"published by the leaves\"")
                        .contains("\"node\":\"elsewhere\",\"address\":\"10.9.9.9:9300\","
                                + "\"state\":\"registered, not configured\"");
            }
        }
    }
}
