package io.hedgerow.root.placement.shared;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.coordination.CoordinationClient;
import io.hedgerow.coordination.CoordinationSettings;
import io.hedgerow.coordination.EmbeddedZooKeeper;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.root.Await;
import io.hedgerow.root.LinkRelay;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.cluster.PartitionAssignment;
import io.hedgerow.root.cluster.PlacementSnapshot;
import io.hedgerow.root.embedded.EmbeddedCluster;
import io.hedgerow.root.placement.Placement;
import io.hedgerow.root.placement.PlacementLeadership;
import io.hedgerow.root.placement.PlacementPlan;
import io.hedgerow.root.placement.PlacementSettings;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two roots sharing one ZooKeeper ({@code --zk}) and four real leaves over loopback: one of them
 * decides placement and stores its plan, the other routes by that plan, takes over from it when the
 * leader's session ends, never decides on its own view of the leaves, and, joining late, does not
 * tell the leaves the configured assignment the leader has moved away from.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SharedPlacementTest {
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    /** Short, so a leaf lost for good is re-replicated within the test. */
    private static final PlacementSettings PLACEMENT = PlacementSettings.defaults().withGrace(Duration.ofMillis(500))
            .withMaxOpening(4);

    private static EmbeddedCluster leaves(Path data) throws Exception {
        EmbeddedCluster cluster = EmbeddedCluster.builder(data)
                .documents("shared", IndexConfig.defaults(), TestData.documents(5, 200))
                .leaves(4).partitions(8).replicas(2)
                .start();
        // Only the roots under test talk to the leaves: the embedded root would tell them the fixed
        // assignment again whenever it reconnected.
        cluster.root().close();
        return cluster;
    }

    private static RootServer root(ClusterConfig config, EmbeddedZooKeeper zk) throws Exception {
        return ZkRoots.root(config.withPlacement(PLACEMENT), zk, "shared");
    }

    private static PlacementLeadership leadership(RootServer root) {
        return root.sharedPlacement().leadership();
    }

    private static StoredPlan stored(EmbeddedZooKeeper zk) throws Exception {
        try (CoordinationClient client = CoordinationClient.connect(CoordinationSettings.of(zk.connectString(),
                "shared"))) {
            return new PlanStore(client).read().orElseThrow();
        }
    }

    /** Starts {@code first} as the leader and {@code second} following its stored plan. */
    private static void awaitLeaderAndFollower(RootServer first, RootServer second) throws Exception {
        Await.until(() -> "one leader, the other following its plan: " + leadership(first) + ", "
                + leadership(second), PATIENCE, () -> leadership(first).leads() && !leadership(second).leads()
                && leadership(first).self().equals(leadership(second).leader()));
    }

    /** Whether every partition has two serving copies on leaves other than {@code lost}. */
    private static boolean fullyReplicatedWithout(PartitionAssignment assignment, int lost) {
        for (int p = 0; p < assignment.partitions(); p++) {
            if (Arrays.stream(assignment.replicasOf(p)).filter(leaf -> leaf != lost).count() < 2) {
                return false;
            }
        }
        return true;
    }

    private static boolean sameTargets(PlacementSnapshot a, PlacementSnapshot b) {
        return Arrays.deepEquals(a.targetOfLeaf(), b.targetOfLeaf())
                && Arrays.equals(a.targetVersion(), b.targetVersion())
                && Arrays.deepEquals(replicas(a.serving()), replicas(b.serving()));
    }

    private static int[][] replicas(PartitionAssignment assignment) {
        return IntStream.range(0, assignment.partitions()).mapToObj(assignment::replicasOf).toArray(int[][]::new);
    }

    @Test
    void theFollowerRoutesByTheLeadersPlanAndTakesOverFromItWhenTheLeadersSessionExpires(@TempDir Path data)
            throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(EmbeddedZooKeeper.Config.local(0, data.resolve("zk")));
                EmbeddedCluster cluster = leaves(data)) {
            ClusterConfig config = cluster.root().cluster().config();
            PartitionAssignment start = config.assignment();
            try (RootServer first = root(config, zk)) {
                Await.until("the first root leads", PATIENCE, () -> leadership(first).leads());
                try (RootServer second = root(config, zk)) {
                    awaitLeaderAndFollower(first, second);
                    assertThat(second.cluster().placementReport()).as("the follower runs no placement").isNull();
                    assertThat(leadership(second).source()).contains(leadership(first).self());

                    cluster.leaves().get(3).close();
                    Await.until(() -> "the follower routes by the leader's re-replicated plan: "
                            + second.cluster().placement(), PATIENCE,
                            () -> fullyReplicatedWithout(second.cluster().assignment(), 3)
                                    && sameTargets(first.cluster().placement(), second.cluster().placement()));
                    assertThat(first.cluster().placementReport().reReplications())
                            .isEqualTo(start.partitionsOf(3).length);
                    assertThat(second.cluster().placementReport()).as("still only the leader places").isNull();
                    PlacementPlan before = stored(zk).plan();
                    assertThat(before.copies().stream().flatMap(List::stream)
                            .filter(c -> c.reason() == Placement.Reason.RE_REPLICATION))
                            .hasSize(start.partitionsOf(3).length)
                            .allMatch(c -> c.state() == Placement.CopyState.SERVING);

                    // The leader's session expires: the follower takes over from the stored plan.
                    first.sharedPlacement().coordination().curator().getZookeeperClient().getZooKeeper()
                            .getTestable().injectSessionExpiration();
                    Await.until(() -> "the second root leads and stored its plan: " + leadership(second),
                            PATIENCE, () -> leadership(second).leads()
                                    && stored(zk).leader().equals(leadership(second).self()));
                    StoredPlan after = stored(zk);
                    assertThat(after.plan()).as("continued, not started over: the copies that served stay")
                            .isEqualTo(before);
                    assertThat(leadership(second).source()).contains("continued")
                            .contains(leadership(first).self());
                    assertThat(second.cluster().placementReport().reReplications()).isZero();
                    assertThat(second.cluster().placementReport().copies())
                            .noneMatch(c -> c.state() == Placement.CopyState.OPENING);
                    Await.until(() -> "the first root follows the second: " + leadership(first), PATIENCE,
                            () -> !leadership(first).leads()
                                    && leadership(second).self().equals(leadership(first).leader()));
                    assertThat(first.cluster().placementReport()).isNull();

                    String json = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                            "http://127.0.0.1:" + first.httpPort() + "/cluster")).build(),
                            HttpResponse.BodyHandlers.ofString()).body();
                    assertThat(json).contains("\"placement_leader\"").contains("\"leads\":false")
                            .contains("\"leader\":\"" + leadership(second).self() + "\"");
                }
            }
        }
    }

    @Test
    void aLeafLostToTheFollowerOnlyGetsNoSecondAssignment(@TempDir Path data) throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(EmbeddedZooKeeper.Config.local(0, data.resolve("zk")));
                EmbeddedCluster cluster = leaves(data);
                LinkRelay relay = new LinkRelay(cluster.leaves().get(2).port())) {
            ClusterConfig config = cluster.root().cluster().config();
            PartitionAssignment start = config.assignment();
            List<String> viaRelay = new ArrayList<>(config.leaves());
            viaRelay.set(2, relay.address());
            ClusterConfig followerConfig = config.withLeaves(viaRelay);
            try (RootServer leader = root(config, zk)) {
                Await.until("the first root leads", PATIENCE, () -> leadership(leader).leads());
                try (RootServer follower = root(followerConfig, zk)) {
                    awaitLeaderAndFollower(leader, follower);
                    Await.until("the follower reaches every leaf", PATIENCE, () -> follower.cluster().allLeavesUp());

                    relay.stop();
                    Await.until("the follower lost leaf 2", PATIENCE,
                            () -> follower.cluster().leaf(2).readyConnections() == 0);
                    // Leaf 3 is lost to both: once the follower routes by the leader's new copies of its
                    // partitions, the follower has had leaf 2 lost for longer than the grace too.
                    cluster.leaves().get(3).close();
                    Await.until(() -> "the follower routes by the leader's re-replicated plan: "
                            + follower.cluster().placement(), PATIENCE,
                            () -> fullyReplicatedWithout(follower.cluster().assignment(), 3)
                                    && sameTargets(leader.cluster().placement(), follower.cluster().placement()));

                    PlacementPlan plan = stored(zk).plan();
                    for (int p : start.partitionsOf(2)) {
                        if (Arrays.stream(start.replicasOf(p)).noneMatch(leaf -> leaf == 3)) {
                            assertThat(plan.keptCopies(p)).as("partition %d, on leaf 2: not re-replicated", p)
                                    .containsExactly(start.replicasOf(p));
                        }
                    }
                    PlacementSnapshot targets = plan.snapshot();
                    for (int leaf = 0; leaf < 3; leaf++) {
                        assertThat(cluster.leaves().get(leaf).openPartitions()).as("leaf %d opened only the"
                                + " leader's target", leaf).containsExactlyInAnyOrderElementsOf(
                                Arrays.stream(targets.targetOfLeaf()[leaf]).boxed().toList());
                    }
                    assertThat(follower.cluster().placementReport()).isNull();
                }
            }
        }
    }

    @Test
    void aRootJoiningAfterTheLeaderMovedCopiesDoesNotTakeThemBack(@TempDir Path data) throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(EmbeddedZooKeeper.Config.local(0, data.resolve("zk")));
                EmbeddedCluster cluster = leaves(data)) {
            ClusterConfig config = cluster.root().cluster().config();
            try (RootServer leader = root(config, zk)) {
                Await.until("the first root leads", PATIENCE, () -> leadership(leader).leads());
                cluster.leaves().get(3).close();
                Await.until("the leader re-replicated leaf 3's partitions", PATIENCE,
                        () -> fullyReplicatedWithout(leader.cluster().assignment(), 3));
                PlacementSnapshot moved = stored(zk).plan().snapshot();

                // Its connections' handshakes tell each leaf a target: the stored plan's, not the configured one.
                try (RootServer joined = root(config, zk)) {
                    for (int leaf = 0; leaf < 3; leaf++) {
                        assertThat(cluster.leaves().get(leaf).openPartitions()).as("leaf %d keeps the leader's"
                                + " target", leaf).containsExactlyInAnyOrderElementsOf(
                                Arrays.stream(moved.targetOfLeaf()[leaf]).boxed().toList());
                    }
                    assertThat(replicas(joined.cluster().assignment())).isDeepEqualTo(replicas(moved.serving()));
                }
            }
        }
    }
}
