package io.hedgerow.root.cluster;

import io.hedgerow.coordination.NodeId;
import java.util.List;

/**
 * Whether the leaf that answers at a slot's address is the leaf membership knows there, and no other
 * slot's: a leaf that died and whose port another leaf process took (another node id) must not be taken
 * for it, with the copies, in-sync places and history the root keeps for that slot; and one leaf must not
 * fill two slots (two spellings of its address: the second slot's empty assignment would close every
 * partition the first opened there). The leaf names its node id in its {@code HelloAck}; membership
 * ({@code --zk}) names the node registered at the address. Pure.
 */
public final class LeafIdentity {
    private LeafIdentity() {
    }

    /** What the root does with a handshake that announced a node id. */
    public sealed interface Verdict {
        /** The slot's leaf: use it. */
        record Accept() implements Verdict {
        }

        /** Not the slot's leaf, or the leaf of another slot: close the connection ({@code why} is its refusal). */
        record Refuse(String why) implements Verdict {
        }

        /**
         * The slot's leaf, which membership placed in slot {@code from} (another spelling of its address,
         * registered before this slot's connection could say whose it is): use it, and move {@code node}'s
         * registration to this slot.
         */
        record Relocate(NodeId node, int from) implements Verdict {
        }
    }

    /**
     * A leaf slot as the handshakes and the connections have shown it.
     *
     * @param claimedNode the node id its open, accepted connections announced ("" when they named none);
     *                    null when it has no such connection
     * @param everReady   whether a connection to its present leaf was ever ready
     * @param listed      whether it is a slot of {@code --leaves} (else filled at run time, or vacant)
     * @param dialSettled whether a dial of its present leaf has ended: answered, refused or failed (a vacant
     *                    slot's reads true: there is nothing to wait for)
     */
    public record SlotFacts(String name, String claimedNode, boolean everReady, boolean listed, boolean dialSettled) {
        /** Whether an open connection to it whose handshake was accepted announced {@code node}. */
        boolean claims(String node) {
            return node.equals(claimedNode);
        }
    }

    private static final Verdict ACCEPT = new Verdict.Accept();

    /**
     * What to do with the handshake of a connection to {@code slot} that announced node {@code announced}:
     * <ol>
     *   <li>refuse it when an open, accepted connection of another slot announced the same node: one leaf
     *       under two addresses keeps the slot that had it first;</li>
     *   <li>refuse it when membership knows another node at the slot ({@link #mismatch});</li>
     *   <li>relocate when membership placed the node in another slot that never had a ready connection and
     *       has no accepted one now: that slot was filled for another spelling of this leaf's address;</li>
     *   <li>refuse for now a slot filled at run time, never ready, while a listed slot's first dial has not
     *       ended: at a root's start membership fills slots before the fan-out dials any, and a listed
     *       slot may hold this same leaf under another spelling, which only its own handshake tells;
     *       accepting first would send this slot's empty assignment, closing the leaf's partitions;</li>
     *   <li>else accept (also when the leaf names no id, an older one, or the root has no membership).</li>
     * </ol>
     *
     * @param slots      every slot, by index
     * @param membership the root's membership view; null without {@code --zk}
     */
    public static Verdict judge(int slot, String announced, List<SlotFacts> slots, MembershipView membership) {
        if (announced == null || announced.isEmpty()) {
            return ACCEPT;
        }
        String name = slots.get(slot).name();
        for (int other = 0; other < slots.size(); other++) {
            if (other != slot && slots.get(other).claims(announced)) {
                return new Verdict.Refuse("leaf " + name + " says it is node " + announced + ", which leaf slot "
                        + other + " (" + slots.get(other).name() + ") already is: one leaf under two addresses, kept"
                        + " in slot " + other + "; not used as slot " + slot + " (spell it the same way in --leaves"
                        + " and the leaf's --host)");
            }
        }
        String stranger = mismatch(name, slot, announced, membership);
        if (stranger != null) {
            return new Verdict.Refuse(stranger);
        }
        if (membership == null) {
            return ACCEPT;
        }
        List<MembershipView.Member> members = membership.leaves();
        for (int other = 0; other < members.size() && other < slots.size(); other++) {
            MembershipView.Member member = members.get(other);
            if (other != slot && member.state() == MembershipView.State.REGISTERED && member.node() != null
                    && member.node().value().equals(announced) && !slots.get(other).everReady()
                    && slots.get(other).claimedNode() == null) {
                return new Verdict.Relocate(member.node(), other);
            }
        }
        if (!slots.get(slot).listed() && !slots.get(slot).everReady()) {
            for (int other = 0; other < slots.size(); other++) {
                if (slots.get(other).listed() && !slots.get(other).dialSettled()) {
                    return new Verdict.Refuse("leaf " + name + " (node " + announced + ") waits until listed leaf slot "
                            + other + " (" + slots.get(other).name() + ") has answered: it may be this same leaf under"
                            + " another address");
                }
            }
        }
        return ACCEPT;
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
