package io.hedgerow.root.placement.shared;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.root.placement.Placement;
import io.hedgerow.root.placement.PlacementPlan;
import io.hedgerow.root.placement.PlacementPlan.PlannedCopy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The placement znode's JSON: every copy's leaf, reason and state, and the target versions, read back as
 * written; with leaf slots, read back by address into the reader's own slots.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PlanCodecTest {
    @Test
    void readsBackEveryCopyInEveryStateAndTheTargetVersions() {
        PlacementPlan plan = new PlacementPlan(List.of(
                List.of(new PlannedCopy(0, Placement.Reason.ORIGINAL, Placement.CopyState.SERVING),
                        new PlannedCopy(2, Placement.Reason.RE_REPLICATION, Placement.CopyState.CATCHING_UP)),
                List.of(new PlannedCopy(1, Placement.Reason.HOT, Placement.CopyState.OPENING),
                        new PlannedCopy(2, Placement.Reason.REBALANCE, Placement.CopyState.RETIRING))),
                List.of(3L, 0L, 7L));

        StoredPlan read = PlanCodec.decode(PlanCodec.encode("root-1@127.0.0.1:8080", plan), 5);

        assertThat(read).isEqualTo(new StoredPlan("root-1@127.0.0.1:8080", plan, 5));
        assertThat(read.plan().keptCopies(1)).containsExactly(1);
    }

    @Test
    void refusesBytesThatAreNotAPlanNamingWhatWasExpected() {
        assertThatThrownBy(() -> PlanCodec.decode("{\"leader\":\"x\"}".getBytes(StandardCharsets.UTF_8), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expected: an object with leader");
        assertThatThrownBy(() -> PlanCodec.decode(("{\"leader\":\"x\",\"partitions\":[[{\"leaf\":4,\"reason\":"
                + "\"original\",\"state\":\"serving\"}]],\"target_versions\":[0]}").getBytes(StandardCharsets.UTF_8), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaf 4");
    }

    /** A root's slots: addresses by slot, null for vacant. */
    private static class Slots implements LeafSlots {
        final List<String> bySlot;

        Slots(String... addresses) {
            this.bySlot = new ArrayList<>(Arrays.asList(addresses));
        }

        @Override
        public int slots() {
            return bySlot.size();
        }

        @Override
        public String addressOf(int slot) {
            return bySlot.get(slot);
        }

        /** Other spellings of a held address (as {@code ClusterState.slotHolding} finds them): spelling to held. */
        final Map<String, String> spellings = new HashMap<>();

        @Override
        public int slotOf(String address) {
            return bySlot.indexOf(address);
        }

        @Override
        public int holding(String address) {
            int slot = slotOf(address);
            return slot >= 0 ? slot : spellings.containsKey(address) ? slotOf(spellings.get(address)) : -1;
        }

        @Override
        public int vacant() {
            return (int) bySlot.stream().filter(a -> a == null).count();
        }

        @Override
        public List<String> configured() {
            return bySlot.stream().filter(a -> a != null).toList();
        }

        /** All or none, as {@code ClusterState.fillSlots}. */
        @Override
        public int[] fillAll(List<String> addresses) {
            List<String> fresh = addresses.stream().filter(a -> holding(a) < 0).distinct().toList();
            if (fresh.size() > vacant()) {
                return null;
            }
            fresh.forEach(a -> bySlot.set(bySlot.indexOf(null), a));
            return addresses.stream().mapToInt(this::holding).toArray();
        }
    }

    /** As a root reads the stored plan: decoded (pure), then mapped to {@code slots} (an index of its partitions). */
    private static StoredPlan decode(byte[] stored, int version, LeafSlots slots) {
        WrittenPlan written = PlanCodec.read(stored);
        return new PlanSlotMapper(slots, written.partitions().size()).toSlots(written, version);
    }

    private static final PlacementPlan BY_WRITER = new PlacementPlan(List.of(
            List.of(new PlannedCopy(0, Placement.Reason.ORIGINAL, Placement.CopyState.SERVING),
                    new PlannedCopy(1, Placement.Reason.ORIGINAL, Placement.CopyState.SERVING)),
            List.of(new PlannedCopy(2, Placement.Reason.REBALANCE, Placement.CopyState.OPENING),
                    new PlannedCopy(1, Placement.Reason.ORIGINAL, Placement.CopyState.RETIRING))),
            List.of(1L, 4L, 2L, 0L));

    @Test
    void aReaderNumberingTheLeavesOtherwiseMapsEveryCopyByAddressAndFillsAVacantSlotForALeafNew() {
        byte[] stored = PlanCodec.encode("root-a", BY_WRITER, new Slots("a:1", "b:1", "c:1", null));
        Slots reader = new Slots("b:1", "a:1", null, null, null);

        PlacementPlan read = decode(stored, 3, reader).plan();

        assertThat(reader.bySlot).as("c:1 took the reader's first vacant slot").containsExactly("b:1", "a:1", "c:1",
                null, null);
        assertThat(read.copies()).isEqualTo(List.of(
                List.of(new PlannedCopy(1, Placement.Reason.ORIGINAL, Placement.CopyState.SERVING),
                        new PlannedCopy(0, Placement.Reason.ORIGINAL, Placement.CopyState.SERVING)),
                List.of(new PlannedCopy(2, Placement.Reason.REBALANCE, Placement.CopyState.OPENING),
                        new PlannedCopy(0, Placement.Reason.ORIGINAL, Placement.CopyState.RETIRING))));
        assertThat(read.targetVersion()).as("by address, sized to the reader's slots").containsExactly(4L, 1L, 2L, 0L,
                0L);
    }

    @Test
    void aPlanNamingMoreNewLeavesThanTheReaderHasVacantSlotsDoesNotFitUnlessItCanBeReadByPosition() {
        byte[] stored = PlanCodec.encode("root-a", BY_WRITER, new Slots("a:1", "b:1", "c:1", null));

        StoredPlan misfit = decode(stored, 0, new Slots("a:1", "b:1", "x:1"));
        assertThat(misfit.plan()).as("not applied: the root routes by what it has").isNull();
        assertThat(misfit.misfit()).contains("[c:1], which have no slot here").contains("raise --leaf-slots");
        // The writer's number of slots, none vacant, one leaf dialled at another address (a relay): by position.
        PlacementPlan read = decode(stored, 0, new Slots("a:1", "b:1", "relay:9", "d:1")).plan();
        assertThat(read).isEqualTo(BY_WRITER);
        // As full, but numbering the leaves it knows otherwise: by position would route a:1's copies to
        // b:1 and back. Not applied (before, read by position).
        StoredPlan reordered = decode(stored, 0, new Slots("b:1", "a:1", "relay:9", "d:1"));
        assertThat(reordered.plan()).as("not read by position").isNull();
        assertThat(reordered.misfit()).contains("[c:1], which have no slot here");
    }

    @Test
    void aPlanWrittenByARootThatDidNotKnowALeafOfTheReadersLeavesDoesNotFit() {
        // The writer knew only b:1: its plan gives a:1 nothing because it never heard of it, not by decision.
        PlacementPlan onB = serving(List.of(3L), new int[] {0});
        byte[] stored = PlanCodec.encode("root-b", onB, new Slots("b:1"));

        StoredPlan read = decode(stored, 0, new Slots("a:1", "b:1"));

        assertThat(read.plan()).isNull();
        assertThat(read.misfit()).contains("did not know leaves [a:1]");
        assertThat(decode(stored, 0, new Slots("b:1", null)).plan().keptCopies(0))
                .as("a reader started with b:1 alone routes by it").containsExactly(0);
    }

    /** Copies on all four of the writer's slots, the fourth (d:1) included. */
    private static final PlacementPlan ON_FOUR = serving(List.of(1L, 1L, 1L, 1L), new int[] {0, 2}, new int[] {1, 3});

    /** A plan of original, serving copies: partition p on the slots {@code slotsByPartition[p]}. */
    private static PlacementPlan serving(List<Long> versions, int[]... slotsByPartition) {
        return new PlacementPlan(Arrays.stream(slotsByPartition)
                .map(slots -> Arrays.stream(slots)
                        .mapToObj(slot -> new PlannedCopy(slot, Placement.Reason.ORIGINAL, Placement.CopyState.SERVING))
                        .toList())
                .toList(), versions);
    }

    @Test
    void aReaderWithAVacantSlotNeverReadsThePlanByPosition() {
        byte[] stored = PlanCodec.encode("root-a", ON_FOUR, new Slots("a:1", "b:1", "c:1", "d:1"));
        // c:1 and d:1 are new here, one slot is vacant: by position, d:1's copies would land on the vacant
        // slot 3, which no connection dials and no write reaches (review42 finding 2).
        Slots reader = new Slots("a:1", "b:1", "relay:9", null);

        StoredPlan read = decode(stored, 0, reader);

        assertThat(read.plan()).as("not read by position").isNull();
        assertThat(read.misfit()).contains("[c:1, d:1], which have no slot here");
        assertThat(reader.bySlot).as("nothing filled").containsExactly("a:1", "b:1", "relay:9", null);
    }

    @Test
    void aPlanThatDoesNotFitFillsNoSlot() {
        byte[] stored = PlanCodec.encode("root-a", BY_WRITER, new Slots("a:1", "b:1", "c:1", null));
        Slots reader = new Slots("a:1", "b:1", null, null);

        StoredPlan otherIndex = new PlanSlotMapper(reader, 3).toSlots(PlanCodec.read(stored), 0);

        assertThat(otherIndex.plan()).isNull();
        assertThat(otherIndex.misfit()).contains("for 2 partitions (expected: 3");
        assertThat(reader.bySlot).as("c:1 took no slot for a plan not applied").containsExactly("a:1", "b:1", null,
                null);
    }

    @Test
    void readingAPlanFillsNothingAndItsNewLeavesTakeSlotsAllOrNone() {
        byte[] stored = PlanCodec.encode("root-a", ON_FOUR, new Slots("a:1", "b:1", "c:1", "d:1"));
        Slots reader = new Slots("a:1", "b:1", null, null);
        WrittenPlan written = PlanCodec.read(stored);

        assertThat(PlanSlotMapper.reading(written, reader))
                .isEqualTo(new PlanSlotMapper.Reading.ByAddress(List.of("c:1", "d:1")));
        assertThat(reader.bySlot).as("deciding fills nothing").containsExactly("a:1", "b:1", null, null);

        // A leaf registering at run time takes a vacant slot between the decision and the fill: c:1 and
        // d:1 no longer both fit, and neither takes the one left.
        Slots raced = new Slots("a:1", "b:1", null, null) {
            @Override
            public int[] fillAll(List<String> addresses) {
                bySlot.set(3, "joined:1");
                return super.fillAll(addresses);
            }
        };
        StoredPlan read = new PlanSlotMapper(raced, 2).toSlots(written, 0);
        assertThat(read.plan()).isNull();
        assertThat(read.misfit()).contains("[c:1, d:1], which have no slot here");
        assertThat(raced.bySlot).containsExactly("a:1", "b:1", null, "joined:1");

        PlacementPlan plan = new PlanSlotMapper(reader, 2).toSlots(written, 0).plan();
        assertThat(reader.bySlot).containsExactly("a:1", "b:1", "c:1", "d:1");
        assertThat(plan).isEqualTo(ON_FOUR);
    }

    @Test
    void aPlanPuttingTwoCopiesOfAPartitionOnTwoSpellingsOfOneLeafFillsNoSlotForItsNewLeaves() {
        // The writer gave one leaf two slots (localhost:7 and 127.0.0.1:7, review42b finding 1), each with a
        // copy of partition 0, and one leaf, c:1, that the reader has not met.
        PlacementPlan twoSpellings = serving(List.of(1L, 1L, 1L, 1L, 1L), new int[] {2, 3}, new int[] {0, 4});
        byte[] stored = PlanCodec.encode("root-a", twoSpellings,
                new Slots("a:1", "b:1", "localhost:7", "127.0.0.1:7", "c:1"));
        Slots reader = new Slots("a:1", "b:1", "127.0.0.1:7", null, null);
        reader.spellings.put("localhost:7", "127.0.0.1:7");

        StoredPlan read = decode(stored, 0, reader);

        assertThat(read.plan()).as("two copies of partition 0 on the reader's slot 2").isNull();
        assertThat(read.misfit()).contains("does not map to this root's slots").contains("partition 0");
        assertThat(reader.vacant()).as("c:1 took no slot for a plan not applied").isEqualTo(2);
        assertThat(reader.bySlot).containsExactly("a:1", "b:1", "127.0.0.1:7", null, null);
    }
}
