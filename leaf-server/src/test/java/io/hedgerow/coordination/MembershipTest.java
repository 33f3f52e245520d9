package io.hedgerow.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/** Leaves as ephemeral znodes, and a root's view of them. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MembershipTest {
    private static final Duration PATIENCE = Duration.ofSeconds(20);
    private static final NodeId LEAF = NodeId.of("leaf-1");

    private ZooKeeperFixture zk;

    @BeforeAll
    void startZooKeeper() throws Exception {
        zk = new ZooKeeperFixture();
    }

    @AfterAll
    void stopZooKeeper() throws Exception {
        zk.shutDown();
    }

    @Test
    void aLeafIsListedWhileItsSessionLivesAndListenersHearItLeaveWhenTheSessionCloses() throws Exception {
        String cluster = zk.newCluster();
        Recorder recorder = new Recorder();
        Membership membership = zk.track(new Membership(zk.client(cluster)));
        membership.addListener(recorder);
        membership.start();
        assertThat(membership.awaitInitialized(PATIENCE)).isTrue();
        assertThat(membership.liveLeaves()).isEmpty();

        CoordinationClient leafSession = zk.client(cluster);
        LeafRegistration.register(leafSession, LEAF, "127.0.0.1:9301", PATIENCE);

        assertThat(recorder.joined.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("heard the leaf join").isTrue();
        assertThat(recorder.addresses).containsEntry(LEAF, "127.0.0.1:9301");
        assertThat(membership.liveLeaves()).containsExactly(Map.entry(LEAF, "127.0.0.1:9301"));

        leafSession.close(); // the session ends: ZooKeeper deletes its ephemeral znode

        assertThat(recorder.left.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("heard the leaf leave").isTrue();
        assertThat(membership.liveLeaves()).isEmpty();
    }

    @Test
    void aLeafWhoseSessionEndsWithoutItsKnowledgeIsRemovedThenRegistersAgainOnItsNewSession() throws Exception {
        String cluster = zk.newCluster();
        Recorder recorder = new Recorder();
        Membership membership = zk.track(new Membership(zk.client(cluster)));
        membership.addListener(recorder);
        membership.start();
        CoordinationClient leafSession = zk.client(cluster);
        LeafRegistration.register(leafSession, LEAF, "127.0.0.1:9303", PATIENCE);
        assertThat(recorder.joined.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();

        // What the server does to a session that timed out (a dead or long-paused leaf), done at once:
        // another handle on the same session closes it, as Curator's old KillSession did.
        ZooKeeper handle = leafSession.curator().getZookeeperClient().getZooKeeper();
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper killer = new ZooKeeper(zk.connectString(), 4000, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        }, handle.getSessionId(), handle.getSessionPasswd());
        assertThat(connected.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        killer.close();

        assertThat(recorder.left.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("heard the leaf leave").isTrue();
        assertThat(recorder.rejoined.await(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                .as("heard the leaf join again on a new session").isTrue();
        assertThat(membership.liveLeaves()).containsExactly(Map.entry(LEAF, "127.0.0.1:9303"));
        assertThat(leafSession.curator().getZookeeperClient().getZooKeeper().getSessionId())
                .isNotEqualTo(handle.getSessionId());
    }

    @Test
    void aLeafThatUnregistersLeavesWhileItsSessionGoesOn() throws Exception {
        String cluster = zk.newCluster();
        Recorder recorder = new Recorder();
        Membership membership = zk.track(new Membership(zk.client(cluster)));
        membership.addListener(recorder);
        membership.start();
        LeafRegistration registration = LeafRegistration.register(zk.client(cluster), LEAF, "127.0.0.1:9302", PATIENCE);
        assertThat(recorder.joined.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();

        registration.close();

        assertThat(recorder.left.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("heard the leaf leave").isTrue();
        assertThat(membership.liveLeaves()).isEmpty();
    }

    @Test
    void leavesAlreadyLiveWhenTheViewStartsAreListedOnceItIsInitialized() throws Exception {
        String cluster = zk.newCluster();
        LeafRegistration.register(zk.client(cluster), NodeId.of("leaf-2"), "10.0.0.2:9300", PATIENCE);
        LeafRegistration.register(zk.client(cluster), NodeId.of("leaf-3"), "10.0.0.3:9300", PATIENCE);

        Membership membership = zk.track(new Membership(zk.client(cluster)));
        membership.start();

        assertThat(membership.awaitInitialized(PATIENCE)).isTrue();
        assertThat(membership.liveLeaves()).containsOnlyKeys(NodeId.of("leaf-2"), NodeId.of("leaf-3"));
    }

    /** Counts down on the first join, the first departure and a join after it of {@link #LEAF}. */
    private static final class Recorder implements MembershipListener {
        final CountDownLatch joined = new CountDownLatch(1);
        final CountDownLatch left = new CountDownLatch(1);
        /** Counts down on a join after the first departure. */
        final CountDownLatch rejoined = new CountDownLatch(1);
        final Map<NodeId, String> addresses = new ConcurrentHashMap<>();

        @Override
        public void joined(NodeId node, String address) {
            addresses.put(node, address);
            if (node.equals(LEAF)) {
                if (left.getCount() == 0) {
                    rejoined.countDown();
                }
                joined.countDown();
            }
        }

        @Override
        public void left(NodeId node) {
            if (node.equals(LEAF)) {
                left.countDown();
            }
        }
    }
}
