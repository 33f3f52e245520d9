package io.hedgerow.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/** Partition states on a real ZooKeeper: create, read, compare-and-set and the write path's changes. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CuratorClusterStoreTest {
    private static final NodeId A = NodeId.of("leaf-a");
    private static final NodeId B = NodeId.of("leaf-b");
    private static final NodeId C = NodeId.of("leaf-c");

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
    void createsAPartitionAtVersionZeroAndReadsItBack() throws Exception {
        ClusterStore store = new CuratorClusterStore(zk.client(zk.newCluster()));
        PartitionState initial = PartitionState.initial(5, A, List.of(B, C));

        UpdateOutcome created = store.create(initial);

        assertThat(created).isEqualTo(new UpdateOutcome.Written(initial.withVersion(0)));
        assertThat(store.read(5)).contains(initial.withVersion(0));
        assertThat(store.read(6)).isEmpty();
    }

    @Test
    void aSecondCreateOfThePartitionIsAConflict() throws Exception {
        ClusterStore store = new CuratorClusterStore(zk.client(zk.newCluster()));
        store.create(PartitionState.initial(0, A, List.of(B)));

        UpdateOutcome again = store.create(PartitionState.initial(0, C, List.of()));

        assertThat(again).isEqualTo(new UpdateOutcome.Conflict(0, PartitionState.UNSTORED));
        assertThat(store.read(0).orElseThrow().primary()).isEqualTo(A);
    }

    @Test
    void ofTwoWritersWithTheSameExpectedVersionOneWinsAndTheOtherGetsAConflict() throws Exception {
        String cluster = zk.newCluster();
        ClusterStore first = new CuratorClusterStore(zk.client(cluster));
        ClusterStore second = new CuratorClusterStore(zk.client(cluster));
        first.create(PartitionState.initial(1, A, List.of(B, C)));
        PartitionState read = first.read(1).orElseThrow();
        assertThat(second.read(1)).contains(read);
        // Each writer removes a different replica from the same version: both decisions are valid alone.
        PartitionState withoutB = new PartitionState(1, read.primaryTerm(), A, Set.of(A, C), read.version());
        PartitionState withoutC = new PartitionState(1, read.primaryTerm(), A, Set.of(A, B), read.version());

        CountDownLatch go = new CountDownLatch(1);
        ExecutorService writers = Executors.newFixedThreadPool(2);
        List<UpdateOutcome> outcomes = new ArrayList<>();
        try {
            Future<UpdateOutcome> one = writers.submit(() -> {
                go.await();
                return first.compareAndSet(read, withoutB);
            });
            Future<UpdateOutcome> other = writers.submit(() -> {
                go.await();
                return second.compareAndSet(read, withoutC);
            });
            go.countDown();
            outcomes.add(one.get());
            outcomes.add(other.get());
        } finally {
            writers.shutdownNow();
        }

        assertThat(outcomes).filteredOn(UpdateOutcome.Written.class::isInstance).hasSize(1);
        assertThat(outcomes).filteredOn(UpdateOutcome.Conflict.class::isInstance)
                .containsExactly(new UpdateOutcome.Conflict(1, read.version()));
        PartitionState winner = outcomes.stream().filter(UpdateOutcome.Written.class::isInstance)
                .map(outcome -> ((UpdateOutcome.Written) outcome).state()).findFirst().orElseThrow();
        assertThat(winner.version()).isEqualTo(read.version() + 1);
        assertThat(first.read(1)).contains(winner);
    }

    @Test
    void promoteRefusesANodeOutsideTheInSyncSetAndWritesNothing() throws Exception {
        ClusterStore store = new CuratorClusterStore(zk.client(zk.newCluster()));
        store.create(PartitionState.initial(2, A, List.of(B)));

        UpdateOutcome outcome = store.promote(2, C);

        assertThat(outcome).isInstanceOfSatisfying(UpdateOutcome.Refused.class, refused ->
                assertThat(refused.reason()).contains("cannot promote leaf-c"));
        PartitionState after = store.read(2).orElseThrow();
        assertThat(after.version()).isZero();
        assertThat(after.primary()).isEqualTo(A);
        assertThat(after.primaryTerm()).isEqualTo(PartitionState.FIRST_TERM);
    }

    @Test
    void theTermIncreasesOnEveryPromotion() throws Exception {
        ClusterStore store = new CuratorClusterStore(zk.client(zk.newCluster()));
        store.create(PartitionState.initial(3, A, List.of(B, C)));
        long term = PartitionState.FIRST_TERM;

        for (NodeId next : List.of(B, C, A, A, B)) {
            PartitionState before = store.read(3).orElseThrow();
            if (!before.isInSync(next)) {
                // The promoted copy must be in sync: the primary of the current term adds it back first.
                assertThat(store.addToInSync(3, next, before.primaryTerm())).isInstanceOf(UpdateOutcome.Written.class);
            }
            UpdateOutcome outcome = store.promote(3, next);

            assertThat(outcome).isInstanceOf(UpdateOutcome.Written.class);
            PartitionState promoted = ((UpdateOutcome.Written) outcome).state();
            assertThat(promoted.primary()).isEqualTo(next);
            assertThat(promoted.primaryTerm()).isGreaterThan(term);
            assertThat(store.read(3)).contains(promoted);
            term = promoted.primaryTerm();
        }
        assertThat(term).isEqualTo(6);
    }

    @Test
    void aDeposedPrimaryCannotShrinkTheInSyncSet() throws Exception {
        ClusterStore store = new CuratorClusterStore(zk.client(zk.newCluster()));
        store.create(PartitionState.initial(4, A, List.of(B, C)));
        store.promote(4, B); // term 2; A, the primary of term 1, has not heard

        UpdateOutcome outcome = store.removeFromInSync(4, C, PartitionState.FIRST_TERM);

        assertThat(outcome).isInstanceOf(UpdateOutcome.Refused.class);
        assertThat(store.read(4).orElseThrow().inSync()).containsExactly(B, C);
        assertThat(store.removeFromInSync(4, C, 2)).isInstanceOfSatisfying(UpdateOutcome.Written.class, written ->
                assertThat(written.state().inSync()).containsExactly(B));
        assertThat(store.removeFromInSync(4, C, 2)).isInstanceOf(UpdateOutcome.Unchanged.class);
    }

    @Test
    void changesToAPartitionWithoutAStateAreMissing() throws Exception {
        ClusterStore store = new CuratorClusterStore(zk.client(zk.newCluster()));

        assertThat(store.promote(9, A)).isEqualTo(new UpdateOutcome.Missing(9));
        assertThat(store.compareAndSet(new PartitionState(9, 1, A, Set.of(A), 0),
                new PartitionState(9, 2, A, Set.of(A), 0))).isEqualTo(new UpdateOutcome.Missing(9));
    }
}
