package io.hedgerow.root.cluster;

import io.hedgerow.coordination.NodeId;

/**
 * Whether the leaf that answers at a slot's address is the leaf membership knows there: a leaf that
 * died and whose port another leaf process took (another node id) must not be taken for it, with the
 * copies, in-sync places and history the root keeps for that slot. The leaf names its node id in its
 * {@code HelloAck}; membership ({@code --zk}) names the node registered at the address. Pure.
 */
public final class LeafIdentity {
    private LeafIdentity() {
    }

    /**
     * Why the leaf in {@code slot}, announcing {@code announced}, is not the one membership knows there;
     * null when it is, or when either side does not know (a leaf that names no id, an older one; a root
     * without {@code --zk}, or no node ever registered at the address).
     *
     * @param membership the root's membership view; null without {@code --zk}
     */
    public static String mismatch(String leafName, int slot, String announced, MembershipView membership) {
        if (announced == null || announced.isEmpty() || membership == null || slot >= membership.leaves().size()) {
            return null;
        }
        MembershipView.Member member = membership.leaves().get(slot);
        NodeId known = member.node();
        if (known == null || known.value().equals(announced)) {
            return null;
        }
        return "leaf " + leafName + " says it is node " + announced + ", but membership knows node " + known.value()
                + " at that address (" + member.state().name().toLowerCase(java.util.Locale.ROOT) + "): another leaf"
                + " process took the port; refused until membership names it there (it registers, or the old node's"
                + " slot is given up)";
    }
}
