package io.hedgerow.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/** One root runs placement; when it goes, another takes over. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PlacementLeaderTest {
    private static final long PATIENCE_SECONDS = 20;

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
    void exactlyOneRootLeadsAndLeadershipHandsOverWhenTheLeaderCloses() throws Exception {
        String cluster = zk.newCluster();
        Recorder firstHeard = new Recorder();
        Recorder secondHeard = new Recorder();
        PlacementLeader first = zk.track(new PlacementLeader(zk.client(cluster), "root-1", firstHeard));
        PlacementLeader second = zk.track(new PlacementLeader(zk.client(cluster), "root-2", secondHeard));
        first.start();
        assertThat(firstHeard.gained.await(PATIENCE_SECONDS, TimeUnit.SECONDS)).as("root-1 leads").isTrue();
        second.start();

        assertThat(first.hasLeadership()).isTrue();
        assertThat(second.hasLeadership()).isFalse();

        first.close();

        assertThat(firstHeard.lost.await(PATIENCE_SECONDS, TimeUnit.SECONDS)).as("root-1 heard it lost").isTrue();
        assertThat(secondHeard.gained.await(PATIENCE_SECONDS, TimeUnit.SECONDS)).as("root-2 took over").isTrue();
        assertThat(second.hasLeadership()).isTrue();
        assertThat(first.hasLeadership()).isFalse();
    }

    @Test
    void leadershipHandsOverWhenTheLeadersSessionEnds() throws Exception {
        String cluster = zk.newCluster();
        Recorder firstHeard = new Recorder();
        Recorder secondHeard = new Recorder();
        CoordinationClient firstSession = zk.client(cluster);
        zk.track(new PlacementLeader(firstSession, "root-1", firstHeard)).start();
        assertThat(firstHeard.gained.await(PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
        PlacementLeader second = zk.track(new PlacementLeader(zk.client(cluster), "root-2", secondHeard));
        second.start();

        firstSession.close();

        assertThat(secondHeard.gained.await(PATIENCE_SECONDS, TimeUnit.SECONDS)).as("root-2 took over").isTrue();
        assertThat(second.hasLeadership()).isTrue();
    }

    private static final class Recorder implements LeadershipListener {
        final CountDownLatch gained = new CountDownLatch(1);
        final CountDownLatch lost = new CountDownLatch(1);

        @Override
        public void gained() {
            gained.countDown();
        }

        @Override
        public void lost() {
            lost.countDown();
        }
    }
}
