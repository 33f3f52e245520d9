package io.hedgerow.root.placement.shared;

import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cluster.LeafAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * How one root numbers the leaves the stored plan names: its leaf slots are its own (another root may
 * give the same leaf another slot), so the stored plan names each copy's leaf by address, and each
 * root maps addresses to its slots when it reads the plan ({@link PlanSlotMapper}), filling vacant
 * slots for leaves it has not met yet.
 */
interface LeafSlots {
    /** This root's leaf slots. */
    int slots();

    /** The address of the leaf in {@code slot}, {@code host:port}; null while the slot is vacant. */
    String addressOf(int slot);

    /** The slot of the leaf at {@code address}, or -1 when no slot holds it. */
    int slotOf(String address);

    /**
     * The slot that holds the leaf at {@code address} by this spelling or another ({@link ClusterState#slotHolding}),
     * or -1: what {@link #fillAll} would give it without filling a vacant one. Fills nothing.
     */
    int holding(String address);

    /** Slots no leaf holds yet. */
    int vacant();

    /**
     * The slots of the leaves at {@code addresses}, filling vacant ones for those no slot holds: all of
     * them, or none when there are too few vacant slots. A slot may hold a leaf under another spelling of
     * its address ({@link ClusterState#slotHolding}): that slot is its.
     *
     * @return by address, in order; null when none was filled
     */
    int[] fillAll(List<String> addresses);

    /** The addresses this root was started with ({@code --leaves}), {@code host:port}. */
    List<String> configured();

    /** A root's slots, as {@code cluster} holds them. */
    static LeafSlots of(ClusterState cluster) {
        return new LeafSlots() {
            private static final System.Logger LOG = System.getLogger(LeafSlots.class.getName());

            @Override
            public int slots() {
                return cluster.leaves().size();
            }

            @Override
            public String addressOf(int slot) {
                LeafAddress address = cluster.leaf(slot).address();
                return address == null ? null : address.toString();
            }

            @Override
            public int slotOf(String address) {
                try {
                    return cluster.slotOf(LeafAddress.parse(address));
                } catch (IllegalArgumentException e) {
                    return -1;
                }
            }

            @Override
            public int holding(String address) {
                try {
                    return cluster.heldSlot(LeafAddress.parse(address));
                } catch (IllegalArgumentException e) {
                    return -1;
                }
            }

            @Override
            public int vacant() {
                return slots() - cluster.filledSlots();
            }

            @Override
            public List<String> configured() {
                return cluster.config().leaves().stream().map(a -> LeafAddress.parse(a).toString()).toList();
            }

            @Override
            public int[] fillAll(List<String> addresses) {
                List<LeafAddress> parsed = new ArrayList<>();
                for (String address : addresses) {
                    try {
                        parsed.add(LeafAddress.parse(address));
                    } catch (IllegalArgumentException e) {
                        return null;
                    }
                }
                int[] slots = cluster.fillSlots(parsed);
                for (int i = 0; slots != null && i < slots.length; i++) {
                    LeafAddress held = cluster.leaf(slots[i]).address();
                    if (!parsed.get(i).equals(held)) {
                        LOG.log(System.Logger.Level.WARNING, "placement: the stored plan names leaf {0}, which leaf"
                                + " slot {1} holds as {2} (the same address and port): one leaf, no slot filled for"
                                + " {0}", parsed.get(i), slots[i], held);
                    }
                }
                return slots;
            }
        };
    }
}
