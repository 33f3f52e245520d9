package io.hedgerow.root.cluster;

import io.hedgerow.coordination.CoordinationClient;
import io.hedgerow.coordination.CoordinationException;
import io.hedgerow.coordination.CoordinationSettings;
import io.hedgerow.coordination.LeafEntry;
import io.hedgerow.coordination.Membership;
import io.hedgerow.coordination.MembershipListener;
import io.hedgerow.coordination.NodeId;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A root's watch on the leaves' membership in ZooKeeper ({@code --zk}): a {@link Membership} cache of
 * the {@code leaves/} znodes, matched to this root's {@code --leaves} by the address each znode holds,
 * and published to {@link ClusterState#membership()} as an immutable {@link MembershipView} on every
 * change. The placement reads that view every tick (a leaf whose znode vanished is down at once,
 * whatever its connections say) and sums the load the leaves published ({@link LeafLoadSums}).
 *
 * <p>A registered leaf whose address is none of this root's leaves takes the first vacant leaf slot
 * ({@link ClusterState#fillSlot}, {@code --leaf-slots}), unless a slot holds it under another spelling
 * of its address ({@link ClusterState#slotHolding}: then it is that slot's, and a WARN names both
 * spellings): the fan-out dials it, and once connected the
 * placement holds it up and may place copies on it. When every slot is taken it is shown, and logged
 * once, as registered but not configured: this root has nowhere to put it, so it routes nothing to it.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe. Its state changes on the membership cache's event
 * thread (one event at a time, in ZooKeeper's order) and on its retry thread (leaves turned away asking
 * again, every {@link #RETRY_MILLIS} ms and when a leaf leaves, never at a load publication: matching
 * them may resolve host names), always under this object's lock; readers read the volatile view in
 * {@link ClusterState} and never wait on ZooKeeper.
 */
public final class LeafMembers implements MembershipListener, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(LeafMembers.class.getName());
    /** How often leaves turned away ask again for a slot, besides when a leaf leaves. */
    static final long RETRY_MILLIS = 1000;

    private final ClusterState cluster;
    private final Clock clock;
    private final CoordinationClient client;
    private final Membership membership;

    // Guarded by this:
    private final MembershipView.Member[] members;
    /** By leaf slot: the node ids registered at its address now. */
    private final List<Set<NodeId>> registeredAt = new ArrayList<>();
    private final Map<NodeId, MembershipView.Stranger> strangers = new TreeMap<>();
    /** Where each registered node is: its leaf slot, or -1. */
    private final Map<NodeId, Integer> placeOf = new HashMap<>();
    /** The address each registered node's znode holds, when it parses. */
    private final Map<NodeId, LeafAddress> registeredAddress = new HashMap<>();
    private final Set<NodeId> warned = new HashSet<>();
    private final LeafLoadSums load;
    private final SlotReuse reuse;
    private boolean initialized;
    /** Asks again for the leaves turned away, every {@link #RETRY_MILLIS} ms. */
    private final ScheduledExecutorService retries = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "leaf-slot-retries");
        thread.setDaemon(true);
        return thread;
    });

    private LeafMembers(CoordinationClient client, ClusterState cluster, Clock clock, SlotReuse reuse) {
        this.client = client;
        this.cluster = cluster;
        this.clock = clock;
        this.reuse = reuse;
        List<LeafStatus> leaves = cluster.leaves();
        this.members = new MembershipView.Member[leaves.size()];
        for (LeafStatus leaf : leaves) {
            members[leaf.index()] = MembershipView.Member.UNSEEN;
            registeredAt.add(new HashSet<>());
        }
        this.load = new LeafLoadSums(cluster.config().partitions());
        this.membership = new Membership(client);
        membership.addListener(this);
        cluster.onRelocation((node, from, to) -> {
            try {
                retries.execute(() -> relocate(node, from, to));
            } catch (RejectedExecutionException e) {
                // closed: the root is stopping
            }
        });
    }

    /**
     * Connects to ZooKeeper (a session of its own) and starts watching the leaves; {@code cluster}'s
     * membership reads {@link MembershipView#empty} until the cache is initialized.
     */
    public static LeafMembers start(CoordinationSettings settings, ClusterState cluster, Clock clock)
            throws CoordinationException {
        return start(settings, cluster, clock, SlotReuse.DEFAULT);
    }

    /** As above, reusing the slots of leaves gone for good as {@code reuse} says. */
    public static LeafMembers start(CoordinationSettings settings, ClusterState cluster, Clock clock, SlotReuse reuse)
            throws CoordinationException {
        CoordinationClient client = CoordinationClient.connect(settings);
        try {
            LeafMembers members = new LeafMembers(client, cluster, clock, reuse);
            cluster.publishMembership(MembershipView.empty(cluster.leaves().size(), cluster.config().partitions()));
            members.membership.start();
            members.retries.scheduleWithFixedDelay(members::retryTurnedAway, RETRY_MILLIS, RETRY_MILLIS,
                    TimeUnit.MILLISECONDS);
            return members;
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
    }

    @Override
    public synchronized void joined(NodeId node, String address) {
        place(node, address);
        publish();
    }

    private void place(NodeId node, String address) {
        LeafAddress parsed = parsed(address);
        if (parsed != null) {
            registeredAddress.put(node, parsed);
        }
        Integer leaf = parsed == null ? null : leafAt(node, parsed);
        Integer before = placeOf.put(node, leaf == null ? -1 : leaf);
        if (before != null && before >= 0 && !before.equals(leaf)) {
            unregister(node, before); // the node moved to another address
        }
        MembershipView.Stranger was = strangers.remove(node);
        long now = clock.millis();
        if (leaf == null) {
            strangers.put(node, new MembershipView.Stranger(node, address, was == null ? now : was.sinceMillis()));
            if (warned.add(node)) {
                LOG.log(System.Logger.Level.WARNING, "leaf {0} registered at {1}, which is none of this root''s"
                        + " --leaves, and every one of its {2} leaf slots is taken (--leaf-slots), none reusable ({3}):"
                        + " shown in /cluster as registered, not configured; nothing is routed to it until a slot"
                        + " frees (raise --leaf-slots to hold more leaves)", node, address, cluster.leaves().size(),
                        cluster.slotsFull());
            }
        } else {
            registeredAt.get(leaf).add(node);
            MembershipView.Member member = members[leaf];
            if (member.state() != MembershipView.State.REGISTERED || !node.equals(member.node())) {
                // The newest registration at an address is the process that listens there now: a leaf
                // restarted under another id registers while its old znode lingers until that session
                // expires, and the root must know it by its new id (HelloAck's node id is checked against it).
                members[leaf] = new MembershipView.Member(MembershipView.State.REGISTERED, node, now);
                if (initialized) {
                    LOG.log(System.Logger.Level.INFO, "membership: leaf {0} registered as {1}", leaf, node);
                }
            }
        }
    }

    private synchronized void retryTurnedAway() {
        try {
            if (initialized && !strangers.isEmpty()) {
                retryStrangers();
                publish();
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "asking again for a leaf slot failed", e);
        }
    }

    /** Leaves turned away ask again: a slot may have become reusable since (its leaf's grace ran out). */
    private void retryStrangers() {
        for (MembershipView.Stranger stranger : List.copyOf(strangers.values())) {
            place(stranger.node(), stranger.address());
        }
    }

    @Override
    public synchronized void published(NodeId node, LeafEntry entry) {
        load.published(node, entry);
        publish(); // a leaf's load frees no slot: the leaves turned away ask again on a leave or the timer
    }

    @Override
    public synchronized void left(NodeId node) {
        Integer leaf = placeOf.remove(node);
        registeredAddress.remove(node);
        strangers.remove(node);
        if (leaf != null && leaf >= 0) {
            unregister(node, leaf);
        }
        retryStrangers();
        publish();
    }

    @Override
    public synchronized void initialized() {
        initialized = true;
        publish();
    }

    private void unregister(NodeId node, int leaf) {
        Set<NodeId> nodes = registeredAt.get(leaf);
        if (!nodes.remove(node)) {
            return;
        }
        if (nodes.isEmpty()) {
            members[leaf] = new MembershipView.Member(MembershipView.State.GONE, node, clock.millis());
            LOG.log(System.Logger.Level.WARNING, "membership: leaf {0} ({1}) left: its znode is gone (its session"
                    + " ended or expired); down for placement until it registers again", leaf, node);
        } else if (node.equals(members[leaf].node())) {
            // Another node is still registered at the address: the leaf there now is that one.
            NodeId remaining = nodes.iterator().next();
            members[leaf] = new MembershipView.Member(MembershipView.State.REGISTERED, remaining, clock.millis());
            LOG.log(System.Logger.Level.INFO, "membership: leaf {0}: node {1} left, {2} is still registered there",
                    leaf, node, remaining);
        }
    }

    /**
     * The slot of the leaf at {@code parsed}: the one that holds it, by this spelling or another (the node
     * id its connection announced, or the address its host resolves to: {@link ClusterState#slotHolding}),
     * else the first vacant one, which it fills (the fan-out dials it), else one whose leaf left for good
     * ({@link SlotReuse}); null when every slot is taken and none may be reused. A slot keeps its address
     * after its leaf leaves: the same leaf restarted (its copies on disk) takes it back, and the placement
     * holds it down meanwhile, then gone after its grace.
     */
    private Integer leafAt(NodeId node, LeafAddress parsed) {
        boolean known = cluster.slotOf(parsed) >= 0;
        // Its host resolved at most once for the three matches below (each compares it with every slot at its port).
        LeafSpelling spelling = cluster.spelling(parsed);
        if (!known) {
            int held = cluster.slotHolding(spelling, node.value());
            if (held >= 0) {
                // One leaf under two spellings: a second slot would dial it again, and that slot's empty
                // assignment would close every partition the first opened there.
                LOG.log(System.Logger.Level.WARNING, "membership: leaf {0} registered at {1}, which leaf slot {2}"
                        + " holds as {3} (the same node id, or the same address and port): one leaf, kept in slot"
                        + " {2}, no slot filled for {1}; spell it the same way in --leaves and the leaf''s --host",
                        node, parsed, held, cluster.leaf(held).address());
                cluster.leaf(held).spelledAlso(parsed);
                return held;
            }
        }
        String before = null;
        int slot = cluster.fillSlot(spelling, node.value());
        if (slot < 0) {
            slot = cluster.fillSlot(spelling, node.value(), clock.millis(), reuse);
            if (slot >= 0) {
                before = "reused";
                // The slot's old leaf left for good: this one is new there, whatever registered before.
                registeredAt.get(slot).clear();
                members[slot] = MembershipView.Member.UNSEEN;
                LOG.log(System.Logger.Level.WARNING, "membership: leaf slot {0} is reused: its leaf left long enough"
                        + " ago and holds nothing here; a leaf registered at {1} takes it", slot, parsed);
            }
        }
        if (slot >= 0 && !known && before == null) {
            LOG.log(System.Logger.Level.INFO, "membership: a leaf registered at {0}, none of this root''s leaves yet:"
                    + " it takes leaf slot {1}", parsed, slot);
        }
        return slot < 0 ? null : slot;
    }

    /**
     * Slot {@code to}'s connection announced {@code node}, which this membership placed in slot {@code from}
     * (filled for another spelling of the leaf's address, never ready: {@link LeafIdentity.Verdict.Relocate}):
     * the registration moves to {@code to}, which learns the registered address as another spelling of its
     * own, and {@code from} is left vacant when that is clean ({@link ClusterState#vacate}; else it stays
     * filled, and its handshakes are refused as slot {@code to}'s leaf's). On the retry thread.
     */
    private synchronized void relocate(NodeId node, int from, int to) {
        Integer at = placeOf.get(node);
        if (at == null || at != from || cluster.leaf(from).everReady()) {
            return; // moved, left, or served meanwhile: judged again at its next handshake
        }
        LeafAddress address = registeredAddress.get(node); // placed in a slot: its address parsed
        registeredAt.get(from).remove(node);
        registeredAt.get(to).add(node);
        placeOf.put(node, to);
        long now = clock.millis();
        members[to] = new MembershipView.Member(MembershipView.State.REGISTERED, node, now);
        Set<NodeId> left = registeredAt.get(from);
        members[from] = left.isEmpty() ? MembershipView.Member.UNSEEN
                : new MembershipView.Member(MembershipView.State.REGISTERED, left.iterator().next(), now);
        cluster.leaf(to).spelledAlso(address);
        boolean vacated = left.isEmpty() && cluster.vacate(from);
        LOG.log(System.Logger.Level.WARNING, "membership: leaf {0} registered at {1}, which leaf slot {2}''s connection"
                + " to {3} answered as that node: one leaf, moved to slot {2}; slot {4}, filled for {1}, {5} (spell it"
                + " the same way in --leaves and the leaf''s --host)", node, address, to, cluster.leaf(to).address(),
                from, vacated ? "is vacant again" : "stays filled, its connections refused as slot " + to + "''s leaf");
        retryStrangers();
        publish();
    }

    /** {@code address} parsed; null when it does not parse (such a registration gets no slot). */
    private static LeafAddress parsed(String address) {
        try {
            return LeafAddress.parse(address);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private void publish() {
        cluster.publishMembership(new MembershipView(initialized, List.of(members), List.copyOf(strangers.values()),
                load.totals(), load.anyPublished()));
    }

    /** Stops watching and ends the session. */
    @Override
    public void close() {
        retries.shutdownNow();
        client.close();
    }
}
