package io.hedgerow.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/** The request path's local copy of every partition's state. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClusterStateCacheTest {
    private static final Duration PATIENCE = Duration.ofSeconds(20);
    private static final NodeId A = NodeId.of("leaf-a");
    private static final NodeId B = NodeId.of("leaf-b");

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
    void holdsThePartitionsStoredBeforeItStartedAndSeesAPromotion() throws Exception {
        String cluster = zk.newCluster();
        ClusterStore store = new CuratorClusterStore(zk.client(cluster));
        store.create(PartitionState.initial(0, A, List.of(B)));
        store.create(PartitionState.initial(1, B, List.of(A)));
        ClusterStateCache cache = zk.track(new ClusterStateCache(zk.client(cluster)));
        CountDownLatch promoted = new CountDownLatch(1);
        cache.addListener(state -> {
            if (state.partition() == 0 && state.primary().equals(B)) {
                promoted.countDown();
            }
        });
        cache.start();
        assertThat(cache.awaitInitialized(PATIENCE)).isTrue();
        assertThat(cache.snapshot()).containsOnlyKeys(0, 1);
        assertThat(cache.get(0)).contains(store.read(0).orElseThrow());
        assertThat(cache.get(7)).isEmpty();

        UpdateOutcome outcome = store.promote(0, B);

        assertThat(promoted.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("the cache heard the promotion").isTrue();
        assertThat(cache.get(0)).contains(((UpdateOutcome.Written) outcome).state());
        assertThat(cache.get(0).orElseThrow().primaryTerm()).isEqualTo(2);
    }

    @Test
    void dropsAPartitionWhoseZnodeCannotBeRead() throws Exception {
        String cluster = zk.newCluster();
        CoordinationClient client = zk.client(cluster);
        new CuratorClusterStore(client).create(PartitionState.initial(3, A, List.of()));
        ClusterStateCache cache = zk.track(new ClusterStateCache(client));
        CountDownLatch removed = new CountDownLatch(1);
        cache.addListener(new PartitionStateListener() {
            @Override
            public void changed(PartitionState state) {
            }

            @Override
            public void removed(int partition) {
                if (partition == 3) {
                    removed.countDown();
                }
            }
        });
        cache.start();
        assertThat(cache.awaitInitialized(PATIENCE)).isTrue();
        assertThat(cache.get(3)).isPresent();

        client.curator().setData().forPath(client.paths().partition(3), "garbage".getBytes(StandardCharsets.UTF_8));

        assertThat(removed.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(cache.get(3)).isEmpty();
    }
}
