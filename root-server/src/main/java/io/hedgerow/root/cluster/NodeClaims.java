package io.hedgerow.root.cluster;

import java.util.ArrayList;
import java.util.List;

/**
 * The node id each slot's open connections announced in their accepted handshakes: where the facts
 * that tell one leaf under two spellings of its address arrive. Each handshake that names a node is
 * judged against every other slot's claim and membership ({@link LeafIdentity#judge}) and, unless
 * refused, recorded in the same step, so that two slots' connections answering at once cannot both
 * be accepted as one node.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: called by the event loops at each handshake and
 * each close of an accepted connection. Its own monitor, held for one pass over the slots, never
 * while blocking (no name resolution, no ZooKeeper).
 */
public final class NodeClaims {
    private final List<LeafStatus> leaves;
    private final int listed;
    // Guarded by this:
    private final String[] claimed;
    private final int[] connections;

    /** @param listed the slots of {@code --leaves}: the first this many */
    NodeClaims(List<LeafStatus> leaves, int listed) {
        this.leaves = leaves;
        this.listed = listed;
        this.claimed = new String[leaves.size()];
        this.connections = new int[leaves.size()];
    }

    /**
     * Judges the handshake of a connection to {@code slot} that announced {@code announced} ("" for none)
     * and, unless refused, records that the connection claims that node until {@link #release}.
     *
     * @param membership the root's membership view; null without {@code --zk}
     */
    public synchronized LeafIdentity.Verdict claim(int slot, String announced, MembershipView membership) {
        List<LeafIdentity.SlotFacts> facts = new ArrayList<>(leaves.size());
        for (LeafStatus leaf : leaves) {
            int i = leaf.index();
            facts.add(new LeafIdentity.SlotFacts(leaf.name(), connections[i] > 0 ? claimed[i] : null, leaf.everReady(),
                    i < listed, leaf.vacant() || leaf.dialSettled()));
        }
        LeafIdentity.Verdict verdict = LeafIdentity.judge(slot, announced, facts, membership);
        if (!(verdict instanceof LeafIdentity.Verdict.Refuse)) {
            claimed[slot] = announced == null ? "" : announced;
            connections[slot]++;
        }
        return verdict;
    }

    /** A connection whose handshake {@link #claim} accepted closed. */
    public synchronized void release(int slot) {
        if (connections[slot] > 0 && --connections[slot] == 0) {
            claimed[slot] = null;
        }
    }

    /** Whether an open connection to {@code slot} had its handshake accepted. */
    synchronized boolean claimed(int slot) {
        return connections[slot] > 0;
    }
}
