package io.hedgerow.root.placement.shared;

import io.hedgerow.root.placement.PlacementPlan;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Maps a stored plan ({@link WrittenPlan}, the writer's slot numbers) to this root's leaf slots.
 * <b>A leaf is its address:</b> each copy goes to the slot that holds its address here, and a leaf this
 * root has not met takes a vacant slot. Only when the plan names a leaf this root has no slot for, none
 * is vacant (it dials that leaf at another address, through a relay) and its slot count is the writer's,
 * with every leaf it knows in the writer's slot, does it read the numbers as positions, as every root did
 * before addresses were stored (they then had to list the same leaves in the same order); a plan without
 * addresses is read so too. A plan whose writer did not know a leaf of this root's {@code --leaves}
 * ({@code known_leaves}) does not fit, nor one for another number of partitions.
 *
 * <p>In three steps, so that a plan that does not fit changes nothing: {@link #reading} decides from the
 * plan and the slots as they are (pure); {@link #toSlots} then maps the new leaves to the slots they would
 * take without filling any, and turns down a plan with two copies of a partition on one slot (two spellings
 * of one leaf); only then does it fill the slots the new leaves need, all of them or none
 * ({@link LeafSlots#fillAll}), and build the slot-numbered plan ({@link #inSlots}).
 *
 * <p><b>Assumptions and guarantees.</b> Stateless apart from the slots it is given; called on the
 * placement's coordination thread. A slot filled by membership between the decision and the fill is
 * seen by the fill, which then fills none when too few vacant slots are left.
 */
final class PlanSlotMapper {
    private static final System.Logger LOG = System.getLogger(PlanSlotMapper.class.getName());

    private final LeafSlots slots;
    private final int partitions;

    /** @param partitions this root's index's partitions: a plan for another number does not fit */
    PlanSlotMapper(LeafSlots slots, int partitions) {
        this.slots = slots;
        this.partitions = partitions;
    }

    LeafSlots slots() {
        return slots;
    }

    /** How a plan is read against the slots as they are. */
    sealed interface Reading {
        /** The writer's slot numbers taken for this root's. */
        record ByPosition() implements Reading {
        }

        /** By address; {@code newLeaves} have no slot here yet and need a vacant one each. */
        record ByAddress(List<String> newLeaves) implements Reading {
        }

        /** The plan does not fit this root: why. */
        record Misfit(String why) implements Reading {
        }
    }

    /**
     * The plan in this root's slots, the slots its new leaves need filled first (all or none); or, when
     * it does not fit, a stored plan without one saying why ({@link StoredPlan#misfit}). A plan read by
     * position is sized as written: the caller checks its leaf count.
     */
    StoredPlan toSlots(WrittenPlan written, int version) {
        return switch (reading(written, slots)) {
            case Reading.Misfit misfit -> new StoredPlan(written.leader(), null, version, misfit.why());
            case Reading.ByPosition byPosition -> new StoredPlan(written.leader(), written.byPosition(), version);
            case Reading.ByAddress byAddress -> {
                if (written.partitions().size() != partitions) {
                    yield new StoredPlan(written.leader(), null, version, "the stored placement plan is for "
                            + written.partitions().size() + " partitions (expected: " + partitions
                            + ", this root's index)");
                }
                String sharedSlot = sharedSlot(written, provisionalSlots(byAddress.newLeaves(), slots), slots);
                if (sharedSlot != null) {
                    // Checked before any slot is filled: a plan that does not fit changes nothing.
                    yield new StoredPlan(written.leader(), null, version, "the stored placement plan does not map"
                            + " to this root's slots: " + sharedSlot);
                }
                int[] filled = byAddress.newLeaves().isEmpty() ? new int[0] : slots.fillAll(byAddress.newLeaves());
                if (filled == null) {
                    yield new StoredPlan(written.leader(), null, version, "the stored placement plan names leaves "
                            + byAddress.newLeaves() + ", which have no slot here (expected: at most "
                            + slots.vacant() + " leaves new to this root, its vacant slots: raise --leaf-slots)");
                }
                Map<String, Integer> slotOf = new HashMap<>();
                for (int i = 0; i < filled.length; i++) {
                    slotOf.put(byAddress.newLeaves().get(i), filled[i]);
                }
                try {
                    yield new StoredPlan(written.leader(), inSlots(written, slots, slotOf), version);
                } catch (IllegalArgumentException e) {
                    // Two spellings of one leaf, both holding a copy of one partition, that only the fill told
                    // apart (a slot filled by membership since the check): the filled slots are dialled anyway.
                    yield new StoredPlan(written.leader(), null, version, "the stored placement plan does not map"
                            + " to this root's slots: " + e.getMessage());
                }
            }
        };
    }

    /** How {@code written} is read against {@code slots} as they are now. Pure: fills nothing. */
    static Reading reading(WrittenPlan written, LeafSlots slots) {
        if (!written.namesAddresses()) {
            return new Reading.ByPosition(); // a plan from before addresses
        }
        Set<String> named = new LinkedHashSet<>();
        written.partitions().forEach(partition -> partition.forEach(copy -> named.add(copy.address())));
        List<String> unknown = named.stream().filter(address -> slots.slotOf(address) < 0).toList();
        if (unknown.size() > slots.vacant()) {
            // By position only with no slot vacant (review42 finding 2): a copy read onto a vacant slot
            // would sit where no connection goes and no write can reach.
            if (slots.vacant() == 0 && written.leaves() == slots.slots() && knownAtTheWritersPositions(written, slots)) {
                LOG.log(System.Logger.Level.WARNING, "placement: the stored plan names leaves " + unknown
                        + ", which this root does not dial at those addresses and has no vacant slot for: read by"
                        + " position, as its --leaves must then list the leaves in the leader's order");
                return new Reading.ByPosition();
            }
            return new Reading.Misfit("the stored placement plan names leaves " + unknown + ", which have no slot"
                    + " here (expected: at most " + slots.vacant() + " leaves new to this root, its vacant slots:"
                    + " raise --leaf-slots)");
        }
        if (written.knownLeaves() != null) {
            // A plan whose writer did not know a leaf this root was started with gave that leaf nothing by
            // ignorance, not by decision (a root started with fewer leaves): it does not fit, as a plan for
            // another number of leaves did not. Leaves that joined this root at run time are not asked for.
            Set<String> known = Set.copyOf(written.knownLeaves());
            List<String> missing = slots.configured().stream().filter(leaf -> !known.contains(leaf)).toList();
            if (!missing.isEmpty()) {
                return new Reading.Misfit("the stored placement plan was written by a root that did not know leaves "
                        + missing + " of this root's --leaves (expected: a plan over them all)");
            }
        }
        return new Reading.ByAddress(unknown);
    }

    /**
     * The plan in this root's slots, sized to them: each copy on the slot of its address ({@code filled}
     * for the leaves just given one, else the slot that holds it), and the target version of each leaf a
     * copy names, by address (the highest, if two spellings of one leaf land on one slot).
     *
     * @throws IllegalStateException when an address has no slot (the caller fills them first)
     * @throws IllegalArgumentException when two copies of one partition land on one slot
     */
    static PlacementPlan inSlots(WrittenPlan written, LeafSlots slots, Map<String, Integer> filled) {
        List<List<PlacementPlan.PlannedCopy>> copies = new ArrayList<>();
        for (List<WrittenPlan.Copy> partition : written.partitions()) {
            List<PlacementPlan.PlannedCopy> list = new ArrayList<>();
            for (WrittenPlan.Copy copy : partition) {
                list.add(new PlacementPlan.PlannedCopy(slotOf(copy.address(), slots, filled), copy.reason(),
                        copy.state()));
            }
            copies.add(list);
        }
        List<Long> versions = new ArrayList<>();
        for (int slot = 0; slot < slots.slots(); slot++) {
            versions.add(0L);
        }
        if (written.versionsByAddress() != null) {
            Set<String> named = new LinkedHashSet<>();
            written.partitions().forEach(partition -> partition.forEach(copy -> named.add(copy.address())));
            written.versionsByAddress().forEach((address, version) -> {
                if (named.contains(address)) { // as before: the leaves the copies name
                    int slot = slotOf(address, slots, filled);
                    versions.set(slot, Math.max(versions.get(slot), version));
                }
            });
        }
        return new PlacementPlan(copies, versions);
    }

    /**
     * Where the fill would put each of {@code newLeaves} without filling anything: the slot that holds it
     * under another spelling ({@link LeafSlots#holding}), else a placeholder of its own, below -1, that
     * stands for the vacant slot it would take.
     */
    private static Map<String, Integer> provisionalSlots(List<String> newLeaves, LeafSlots slots) {
        Map<String, Integer> provisional = new HashMap<>();
        for (String address : newLeaves) {
            int held = slots.holding(address);
            provisional.put(address, held >= 0 ? held : -2 - provisional.size());
        }
        return provisional;
    }

    /**
     * Why the plan puts two copies of one partition on one slot of this root, with the new leaves in
     * {@code provisional} slots; null when it does not (only two spellings of one leaf do that).
     */
    private static String sharedSlot(WrittenPlan written, Map<String, Integer> provisional, LeafSlots slots) {
        for (int p = 0; p < written.partitions().size(); p++) {
            Set<Integer> taken = new HashSet<>();
            for (WrittenPlan.Copy copy : written.partitions().get(p)) {
                Integer slot = provisional.get(copy.address());
                int here = slot != null ? slot : slots.slotOf(copy.address());
                if (!taken.add(here)) {
                    return "partition " + p + ": two copies on leaf slot " + here + " (" + copy.address()
                            + " and another spelling of it; expected: copies on distinct leaves)";
                }
            }
        }
        return null;
    }

    private static int slotOf(String address, LeafSlots slots, Map<String, Integer> filled) {
        Integer slot = filled.get(address);
        int here = slot != null ? slot : slots.slotOf(address);
        if (here < 0) {
            throw new IllegalStateException("leaf " + address + ": no slot here (expected: filled before the plan"
                    + " is built)");
        }
        return here;
    }

    /**
     * Whether every leaf the plan names that this root knows sits in this root's slot of the number
     * the writer gave it: only then may the rest (leaves dialled through a relay) be read by position.
     * A root that numbers its leaves otherwise (another --leaves order, leaves joined in another order)
     * would route every copy to the wrong leaf (review of join31, finding 3).
     */
    private static boolean knownAtTheWritersPositions(WrittenPlan written, LeafSlots slots) {
        for (List<WrittenPlan.Copy> partition : written.partitions()) {
            for (WrittenPlan.Copy copy : partition) {
                int here = slots.slotOf(copy.address());
                if (here >= 0 && here != copy.leaf()) {
                    return false;
                }
            }
        }
        return true;
    }
}
