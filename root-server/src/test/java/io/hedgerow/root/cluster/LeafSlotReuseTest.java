package io.hedgerow.root.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.coordination.NodeId;
import io.hedgerow.root.metrics.RootMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A root of three leaf slots ({@code --leaf-slots 3}) with two listed leaves; a third leaf joins at
 * run time, later leaves membership for good, and a fourth, at another address, asks for a slot. Scripted
 * on membership's clock (epoch milliseconds) and a manual ticker: the slot is reused only once the
 * third leaf has been gone for the grace, holds no copy and has no ready connection; the slot's next leaf
 * inherits none of its latencies, counts, errors, stale marks, slow start or meters. Before, a slot once
 * filled kept its address for the root's life, and the fourth leaf was turned away for good.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class LeafSlotReuseTest {
    private static final long GRACE = 60_000;
    private static final SlotReuse REUSE = SlotReuse.of(Duration.ofMillis(GRACE));
    private static final LeafAddress THIRD = LeafAddress.parse("127.0.0.1:9003");
    private static final LeafAddress FOURTH = LeafAddress.parse("127.0.0.1:9004");
    private static final long LEFT_AT = 1_000_000;

    private final ManualTicker ticker = new ManualTicker().advance(Duration.ofHours(1));
    private final ClusterState cluster = new ClusterState(
            ClusterConfig.of("idx", List.of("127.0.0.1:9001", "127.0.0.1:9002"), 2, 2).withLeafSlots(3), 1, ticker);
    private final List<String> reused = new ArrayList<>();
    private final List<Integer> filled = new ArrayList<>();

    LeafSlotReuseTest() {
        cluster.onSlotReused((slot, before, now) -> reused.add(slot + ": " + before + " -> " + now));
        cluster.onSlotFilled(filled::add);
    }

    /** Slots 0 and 1 registered; slot 2's leaf (the third) left membership at {@link #LEFT_AT}. */
    private void thirdLeft() {
        cluster.publishMembership(new MembershipView(true, List.of(registered("leaf-0"), registered("leaf-1"),
                new MembershipView.Member(MembershipView.State.GONE, NodeId.of("leaf-2"), LEFT_AT)), List.of(),
                new long[2], false));
    }

    private static MembershipView.Member registered(String node) {
        return new MembershipView.Member(MembershipView.State.REGISTERED, NodeId.of(node), 0);
    }

    @Test
    void aSlotWhoseLeafLeftForGoodIsReusedAfterTheGraceAndItsNextLeafInheritsNothing() {
        RootMetrics metrics = new RootMetrics(cluster);
        assertThat(metrics.scrape()).as("no meter for a vacant slot").doesNotContain("vacant slot");
        assertThat(cluster.fillSlot(THIRD, 0, REUSE)).as("the vacant slot").isEqualTo(2);
        assertThat(metrics.scrape()).contains("hedgerow_leaf_up{leaf=\"127.0.0.1:9003\"}");
        // What the root learnt of the third leaf while it served.
        LeafStatus slot = cluster.leaf(2);
        slot.connectionReady();
        slot.answered(5_000_000, 4_000_000);
        slot.failed("timed out");
        cluster.staleReplicas().mark(0, 2, true);
        cluster.slowStart().begin(2, ticker.nanoTime());
        metrics.subRequestAnswered(2, 5_000_000, 100_000, 4_000_000, 0);
        slot.connectionLost("lost leaf");
        thirdLeft();

        assertThat(cluster.fillSlot(FOURTH, LEFT_AT + GRACE - 1, REUSE)).as("within the grace: kept for its return")
                .isEqualTo(-1);
        assertThat(cluster.slotsFull()).contains("127.0.0.1:9004").contains("--leaf-slots").contains("1 whose leaf left less");
        assertThat(reused).isEmpty();

        assertThat(cluster.fillSlot(FOURTH, LEFT_AT + GRACE, REUSE)).as("after the grace").isEqualTo(2);
        assertThat(reused).containsExactly("2: 127.0.0.1:9003 -> 127.0.0.1:9004");
        assertThat(filled).containsExactly(2, 2);
        assertThat(cluster.slotOf(THIRD)).isEqualTo(-1);
        assertThat(slot.name()).isEqualTo("127.0.0.1:9004");
        assertThat(slot.subRequests()).isZero();
        assertThat(slot.failures()).isZero();
        assertThat(slot.lastError()).isNull();
        assertThat(slot.latency().count()).isZero();
        assertThat(slot.connectionReady()).as("not a leaf coming back: it never was here").isFalse();
        assertThat(cluster.staleReplicas().stale(0, 2)).isFalse();
        assertThat(cluster.staleReplicas().count()).isZero();
        assertThat(cluster.slowStart().inSlowStart(2)).isFalse();
        String scrape = metrics.scrape();
        assertThat(scrape).as("meters labelled by the new leaf's address").contains("leaf=\"127.0.0.1:9004\"")
                .as("the old leaf's meters removed").doesNotContain("127.0.0.1:9003");
        assertThat(metrics.leafLatency().snapshot().stream().filter(r -> r.leaf() == 2)
                .mapToLong(r -> r.histogram().getTotalCount()).sum()).as("its histograms emptied").isZero();
    }

    @Test
    void aSlotThatHoldsACopyOrAReplicaOrAReadyConnectionIsNeverReused() {
        assertThat(cluster.fillSlot(THIRD, 0, REUSE)).isEqualTo(2);
        thirdLeft();
        long late = LEFT_AT + 10 * GRACE;

        // The placement put a copy of partition 0 on it.
        PlacementSnapshot before = cluster.placement();
        int[][] targets = before.targetOfLeaf().clone();
        targets[2] = new int[] {0};
        cluster.publish(new PlacementSnapshot(before.serving(), targets, before.targetVersion()));
        assertThat(cluster.fillSlot(FOURTH, late, REUSE)).as("a copy in the placement").isEqualTo(-1);
        assertThat(cluster.slotsFull()).contains("1 whose leaf left holding copies");
        cluster.publish(before);

        AtomicBoolean replica = new AtomicBoolean(true);
        cluster.writeReplicas(s -> s == 2 && replica.get());
        assertThat(cluster.fillSlot(FOURTH, late, REUSE)).as("a replica of the write path").isEqualTo(-1);
        replica.set(false);

        cluster.leaf(2).connectionReady();
        assertThat(cluster.fillSlot(FOURTH, late, REUSE)).as("a ready connection: not gone").isEqualTo(-1);
        cluster.leaf(2).connectionLost("lost leaf");

        assertThat(cluster.fillSlot(FOURTH, late, REUSE)).as("nothing held any more").isEqualTo(2);
        assertThat(cluster.fillSlot(THIRD, late, REUSE)).as("the listed leaves' slots are present: none for it")
                .isEqualTo(-1);
    }
}
