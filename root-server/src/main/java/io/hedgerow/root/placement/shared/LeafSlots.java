package io.hedgerow.root.placement.shared;

import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cluster.LeafAddress;
import java.util.List;

/**
 * How one root numbers the leaves the stored plan names: its leaf slots are its own (another root may
 * give the same leaf another slot), so the stored plan names each copy's leaf by address, and each
 * root maps addresses to its slots when it reads the plan, filling a vacant slot for a leaf it has not
 * met yet.
 */
interface LeafSlots {
    /** This root's leaf slots. */
    int slots();

    /** The address of the leaf in {@code slot}, {@code host:port}; null while the slot is vacant. */
    String addressOf(int slot);

    /** The slot of the leaf at {@code address}, or -1 when no slot holds it. */
    int slotOf(String address);

    /** Slots no leaf holds yet. */
    int vacant();

    /** The slot of the leaf at {@code address}, filling a vacant one if need be; -1 when none is left. */
    int fill(String address);

    /** The addresses this root was started with ({@code --leaves}), {@code host:port}. */
    List<String> configured();

    /** A root's slots, as {@code cluster} holds them. */
    static LeafSlots of(ClusterState cluster) {
        return new LeafSlots() {
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
            public int vacant() {
                return slots() - cluster.filledSlots();
            }

            @Override
            public List<String> configured() {
                return cluster.config().leaves().stream().map(a -> LeafAddress.parse(a).toString()).toList();
            }

            @Override
            public int fill(String address) {
                try {
                    return cluster.fillSlot(LeafAddress.parse(address));
                } catch (IllegalArgumentException e) {
                    return -1;
                }
            }
        };
    }
}
