package io.hedgerow.root.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One leaf under two spellings of its address (review42 finding 1): {@code --leaves} names it
 * {@code 127.0.0.1:9001}, and it registers as {@code localhost:9001}, or by a host name. A second slot
 * for it would dial the same process, and that slot's empty assignment would close every partition the
 * first opened there. The root keeps it in the slot that holds it: the slot whose ready connection
 * announced its node id, else the one at the same port whose host resolves to the same address. No DNS:
 * loopback literals and {@code localhost} only.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class LeafSpellingsTest {
    private final ClusterState cluster = new ClusterState(
            ClusterConfig.of("idx", List.of("127.0.0.1:9001", "127.0.0.1:9002"), 2, 2).withLeafSlots(4), 1,
            new ManualTicker());
    private final List<Integer> filled = new ArrayList<>();

    LeafSpellingsTest() {
        cluster.onSlotFilled(filled::add);
    }

    @Test
    void aLeafRegisteredAsLocalhostIsTheListedLoopbackLeafAtItsPortAndFillsNoSlot() {
        assertThat(cluster.slotHolding(LeafAddress.parse("localhost:9001"), "leaf-0")).isEqualTo(0);
        assertThat(cluster.fillSlot(LeafAddress.parse("localhost:9001"), "leaf-0")).isEqualTo(0);
        assertThat(cluster.fillSlot(LeafAddress.parse("localhost:9002"), null, 0, SlotReuse.DEFAULT)).isEqualTo(1);
        assertThat(cluster.filledSlots()).isEqualTo(2);
        assertThat(filled).as("no slot filled, none dialled").isEmpty();

        // Another port, or another loopback address (a process of its own can bind the same port there).
        assertThat(cluster.fillSlot(LeafAddress.parse("localhost:9003"), "leaf-2")).isEqualTo(2);
        assertThat(cluster.fillSlot(LeafAddress.parse("127.0.0.2:9001"), "leaf-3")).isEqualTo(3);
        assertThat(filled).containsExactly(2, 3);
    }

    @Test
    void aLeafIsKnownByTheNodeIdItsReadyConnectionAnnouncedWhateverItsAddress() {
        LeafStatus second = cluster.leaf(1);
        second.announcedNode("leaf-1");
        // An unresolvable name (RFC 2606) at a port no slot has: only the node id can tell.
        LeafAddress byName = LeafAddress.parse("leaf-1.example.invalid:7001");
        assertThat(cluster.slotHolding(byName, "leaf-1")).as("announced, but no connection is ready: it may have"
                + " moved since").isEqualTo(-1);

        second.connectionReady();
        assertThat(cluster.fillSlot(byName, "leaf-1")).isEqualTo(1);
        assertThat(cluster.fillSlot(byName, "leaf-9")).as("another node").isEqualTo(2);
        assertThat(cluster.fillSlot(LeafAddress.parse("leaf-9.example.invalid:7002"), "")).as("no id: by address")
                .isEqualTo(3);
        assertThat(filled).containsExactly(2, 3);
    }

    @Test
    void aStoredPlansLeavesFillSlotsAllOrNoneAndAnotherSpellingTakesTheSlotThatHoldsIt() {
        assertThat(cluster.fillSlots(List.of(LeafAddress.parse("127.0.0.1:9003"), LeafAddress.parse("127.0.0.1:9004"),
                LeafAddress.parse("127.0.0.1:9005")))).as("three new leaves, two vacant slots: none filled").isNull();
        assertThat(cluster.filledSlots()).isEqualTo(2);
        assertThat(filled).isEmpty();

        assertThat(cluster.fillSlots(List.of(LeafAddress.parse("127.0.0.1:9003"), LeafAddress.parse("localhost:9001"),
                LeafAddress.parse("127.0.0.1:9002")))).containsExactly(2, 0, 1);
        assertThat(filled).containsExactly(2);
        assertThat(cluster.leaf(0).address()).hasToString("127.0.0.1:9001");
    }

    /**
     * A registration found to be a slot's leaf under another spelling is that slot's from then on (a leaf
     * restarted registers there again before any connection of the slot is ready), until another leaf
     * takes the slot over.
     */
    @Test
    void aSpellingLearntForASlotIsThatSlotsWithoutAReadyConnectionUntilTheSlotIsReused() {
        LeafAddress byName = LeafAddress.parse("leaf-0.example.invalid:7001");
        assertThat(cluster.slotHolding(byName, "leaf-0")).isEqualTo(-1);

        cluster.leaf(0).spelledAlso(byName);
        assertThat(cluster.slotHolding(byName, "leaf-0")).isEqualTo(0);
        assertThat(cluster.fillSlot(byName, "leaf-0")).isEqualTo(0);
        assertThat(filled).isEmpty();

        cluster.leaf(0).reuse(LeafAddress.parse("127.0.0.1:9009"));
        assertThat(cluster.slotHolding(byName, "leaf-0")).as("another leaf's slot now").isEqualTo(-1);
    }

    /** A slot filled for a leaf that turned out to be another slot's is vacant again, when nothing holds it there. */
    @Test
    void aSlotNeverReadyThatHoldsNothingIsLeftVacantAgain() {
        List<Integer> vacated = new ArrayList<>();
        cluster.onSlotVacated(vacated::add);
        assertThat(cluster.fillSlot(LeafAddress.parse("leaf-0.example.invalid:7001"), "leaf-0")).isEqualTo(2);

        assertThat(cluster.vacate(2)).isTrue();
        assertThat(cluster.leaf(2).vacant()).isTrue();
        assertThat(cluster.filledSlots()).isEqualTo(2);
        assertThat(vacated).containsExactly(2);
        assertThat(cluster.vacate(2)).as("vacant already").isFalse();

        assertThat(cluster.vacate(1)).as("a listed slot holding copies").isFalse();
        assertThat(cluster.fillSlot(LeafAddress.parse("leaf-3.example.invalid:7003"), "leaf-3")).isEqualTo(2);
        cluster.leaf(2).connectionReady();
        cluster.leaf(2).connectionLost("gone");
        assertThat(cluster.vacate(2)).as("it was ready once: its leaf may hold writes").isFalse();
        assertThat(vacated).containsExactly(2);
    }
}
