package io.hedgerow.root.cluster;

import io.hedgerow.common.net.LinkTls;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.coordination.NodeId;
import io.hedgerow.root.adapt.Probation;
import io.hedgerow.root.adapt.SlowStart;
import io.hedgerow.root.placement.PlacementLeadership;
import io.hedgerow.root.placement.PlacementReport;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntConsumer;
import java.util.function.IntPredicate;
import java.util.function.Supplier;
import java.util.stream.IntStream;

/**
 * The root's shared view of its cluster: the assignment, each leaf's status, each partition's
 * document count as the leaves reported it (used for coverage as a fraction of documents), the
 * index every leaf must serve ({@link ServedIndex}) and this root's id, which it tells every leaf
 * in its Hello so that its request ids never collide with another root's.
 *
 * <p><b>Leaf slots.</b> {@link ClusterConfig#leafSlots} of them, every per-leaf structure sized once:
 * the configured leaves fill the first, and a leaf that registers at run time fills a vacant one
 * ({@link #fillSlot}, called by {@link LeafMembers}, and by the shared placement for a leaf its stored
 * plan names). A leaf is one slot however its address is spelled: one that registers as
 * {@code localhost:9001} while a slot holds {@code 127.0.0.1:9001} is that slot's ({@link #slotHolding}).
 * A slot keeps its address after its leaf leaves, so that the same leaf restarted there
 * takes it back with its copies; when none is vacant, a joining leaf may take over one whose leaf left
 * for good and holds nothing this root still needs ({@link SlotReuse}): every per-slot structure it
 * would inherit is reset first, and each {@link #onSlotReused} listener (connections, meters) told. A
 * vacant slot has no connection, holds no copy, and readiness and health skip it.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe; written by event loops as connections come
 * and go, read by queries and by the HTTP {@code /cluster} endpoint. Slots are filled under this
 * object's lock, by the membership's and the placement's threads only (never an event loop): filling
 * may resolve host names.
 */
public final class ClusterState {
    private final ClusterConfig config;
    private volatile PlacementSnapshot placement;
    private final PartitionLoad partitionLoad;
    private volatile Supplier<PlacementReport> placementReport = () -> null;
    private volatile Supplier<PlacementLeadership> placementLeadership = () -> null;
    private volatile MembershipView membership;
    private volatile AssignListener assignListener = (leaf, version, open, error) -> { };
    /** Told of each slot a leaf fills at run time ({@link #fillSlot}): the fan-out, to dial it; the meters. */
    private final List<IntConsumer> slotFilled = new CopyOnWriteArrayList<>();
    /** Told of each slot another leaf takes over ({@link #fillSlot(LeafAddress, long, SlotReuse)}). */
    private final List<SlotReused> slotReused = new CopyOnWriteArrayList<>();
    /** Told of each slot left vacant again ({@link #vacate}): the fan-out, to stop dialling it; the meters. */
    private final List<IntConsumer> slotVacated = new CopyOnWriteArrayList<>();
    /** Where a node's registration moves when another slot's connection announced it ({@link #relocate}). */
    private volatile Relocation relocation = (node, from, to) -> { };
    /** The node ids the slots' open connections announced: one leaf never serves as two slots. */
    private final NodeClaims nodeClaims;
    /** Whether the write path names a replica on a slot (its partition writers' replica sets). */
    private volatile IntPredicate writeReplicaOn = slot -> false;
    /** By slot: when its present leaf took it ({@link #fillSlot(LeafAddress, long, SlotReuse)}). Guarded by this. */
    private final long[] filledAtMillis;
    /** Why the last leaf that asked for a slot found none, for {@code /cluster}; null when none was turned away. */
    private volatile String slotsFull;
    private final List<LeafStatus> leaves;
    private final AtomicLongArray partitionDocs;
    private final int[] allPartitions;
    private final ServedIndex index;
    private final long rootId;
    private final Probation probation;
    private final SlowStart slowStart;
    private final LinkTls linkTls;
    private final StaleReplicas staleReplicas;
    private final Ticker ticker;
    private final HostResolver resolver;

    /** With a random root id. */
    public ClusterState(ClusterConfig config, int connectionsPerLeaf, Ticker ticker) {
        this(config, connectionsPerLeaf, ticker, randomRootId());
    }

    /** @param rootId this root's id, never 0: unique among the roots of the leaves (a random one is) */
    public ClusterState(ClusterConfig config, int connectionsPerLeaf, Ticker ticker, long rootId) {
        this(config, connectionsPerLeaf, ticker, rootId, true);
    }

    /**
     * @param rootId               this root's id, never 0
     * @param leafLatencyWindows   whether each leaf keeps the latency windows {@code /cluster}
     *                             reports; a simulation of thousands of leaves keeps none (they cost
     *                             about half a megabyte a leaf, and nothing on the request path reads them)
     */
    public ClusterState(ClusterConfig config, int connectionsPerLeaf, Ticker ticker, long rootId,
            boolean leafLatencyWindows) {
        this(config, connectionsPerLeaf, ticker, rootId, leafLatencyWindows, HostResolver.SYSTEM);
    }

    /**
     * As above, resolving the leaves' host names with {@code resolver} (to tell two spellings of one leaf's
     * address: {@link #slotHolding}).
     */
    public ClusterState(ClusterConfig config, int connectionsPerLeaf, Ticker ticker, long rootId,
            boolean leafLatencyWindows, HostResolver resolver) {
        this.resolver = resolver;
        if (rootId == 0) {
            throw new IllegalArgumentException("rootId: 0 (expected: non-zero)");
        }
        this.config = config;
        this.ticker = ticker;
        this.rootId = rootId;
        this.index = ServedIndex.of(config);
        this.placement = PlacementSnapshot.fixed(config.assignment());
        this.partitionLoad = new PartitionLoad(config.partitions(), config.placement().measuresLoad());
        // Every slot's status now (the arrays of leaves are sized once); the listed leaves fill the first.
        this.leaves = IntStream.range(0, config.leafSlots())
                .mapToObj(i -> new LeafStatus(i, i < config.leaves().size() ? LeafAddress.parse(config.leaves().get(i))
                        : null, connectionsPerLeaf, ticker, leafLatencyWindows))
                .toList();
        this.partitionDocs = new AtomicLongArray(config.partitions());
        this.allPartitions = IntStream.range(0, config.partitions()).toArray();
        this.staleReplicas = new StaleReplicas(config.partitions(), config.leafSlots());
        this.nodeClaims = new NodeClaims(leaves, Math.min(config.leaves().size(), config.leafSlots()));
        this.filledAtMillis = new long[config.leafSlots()];
        java.util.Arrays.fill(filledAtMillis, Long.MIN_VALUE);
        for (int p = 0; p < config.partitions(); p++) {
            partitionDocs.set(p, -1);
        }
        // A leaf that can serve at all: probation keeps one such replica of every partition in rotation.
        try {
            this.linkTls = LinkTls.dialing(config.tlsTrust());
        } catch (IOException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        this.slowStart = new SlowStart(config.leafSlots(), config.adaptation().slowStart());
        this.probation = new Probation(config.adaptation(), this::assignment,
                leaf -> leaves.get(leaf).state() == LeafStatus.State.UP || leaves.get(leaf).state() == LeafStatus.State.DEGRADED);
    }

    /** The replicas that missed acknowledged writes: the write path marks them, searches avoid them. */
    public StaleReplicas staleReplicas() {
        return staleReplicas;
    }

    /** Now on the root's ticker (the clock of probation's times). */
    public long nanoTime() {
        return ticker.nanoTime();
    }

    /** TLS on the connections to the leaves, or none ({@link ClusterConfig#tlsTrust()}). */
    public LinkTls linkTls() {
        return linkTls;
    }

    /** Leaves that came back and get a growing share of primaries, shared by every event loop. */
    public SlowStart slowStart() {
        return slowStart;
    }

    /** Which leaves are on latency-induced probation, shared by every event loop. */
    public Probation probation() {
        return probation;
    }

    public ClusterConfig config() {
        return config;
    }

    /** A random 64-bit root id, never 0: a fresh one for every root process, so a restarted root is a new root. */
    public static long randomRootId() {
        SecureRandom random = new SecureRandom();
        long id;
        do {
            id = random.nextLong();
        } while (id == 0);
        return id;
    }

    /** This root's id, sent in its Hello to every leaf. */
    public long rootId() {
        return rootId;
    }

    /** The first frame on every connection to a leaf: this root's id and the cluster's secret. */
    public io.hedgerow.common.wire.proto.Frame rootHello() {
        return io.hedgerow.common.wire.Protocol.rootHello(rootId, config.clusterSecret());
    }

    /** Every leaf's {@code host:port} as twins name them: the peers an assignment tells each leaf of. */
    public List<String> leafNames() {
        return leaves.stream().filter(leaf -> !leaf.vacant()).map(LeafStatus::name).toList();
    }

    /** The slot of the leaf at {@code address}, or -1 when no slot holds it. */
    public int slotOf(LeafAddress address) {
        for (LeafStatus leaf : leaves) {
            if (address.equals(leaf.address())) {
                return leaf.index();
            }
        }
        return -1;
    }

    /**
     * The slot that holds the leaf at {@code address} under another spelling of it, or -1: a leaf
     * {@code --leaves} names {@code 127.0.0.1:9001} may register as {@code localhost:9001}, or by its host
     * name, and a second slot for it would dial the same process, whose handshake then sends that slot's
     * (empty) assignment and closes every partition the first slot opened there. The same leaf is the
     * one that learnt {@code address} as another spelling of its own ({@link LeafStatus#spellings}), else the
     * one whose ready connection announced {@code node} ({@link LeafStatus#announcedNode}), else one at the
     * same port whose host resolves ({@link HostResolver}: once for each slot's address) to an address
     * {@code address}'s host resolves to: one port of one host is one process, whatever the node ids say. A
     * host that does not resolve matches nothing.
     *
     * <p>May block on name resolution (the JVM caches answers): called by the membership's and the
     * placement's threads, never by an event loop.
     *
     * @param node the node id the leaf registered under; null or "" when unknown (a stored plan's address)
     */
    public int slotHolding(LeafAddress address, String node) {
        return slotHolding(spelling(address), node);
    }

    /** {@code address}, to be matched against the slots with its host resolved at most once ({@link #slotHolding}). */
    LeafSpelling spelling(LeafAddress address) {
        return new LeafSpelling(address, resolver);
    }

    /** As {@link #slotHolding(LeafAddress, String)}, the host resolved at most once for all the calls given it. */
    int slotHolding(LeafSpelling spelling, String node) {
        LeafAddress address = spelling.address();
        for (LeafStatus leaf : leaves) {
            if (leaf.spellings().contains(address)) {
                return leaf.index(); // learnt: a registration there was this slot's leaf
            }
        }
        if (node != null && !node.isEmpty()) {
            for (LeafStatus leaf : leaves) {
                // A connection ready now: an id announced before the leaf went away may be of a process since
                // restarted at another address, which its old slot would no longer reach.
                if (!leaf.vacant() && !address.equals(leaf.address()) && node.equals(leaf.announcedNode())
                        && leaf.readyConnections() > 0) {
                    return leaf.index();
                }
            }
        }
        for (LeafStatus leaf : leaves) {
            LeafAddress held = leaf.address();
            if (held == null || held.equals(address) || held.port() != address.port()) {
                continue;
            }
            // Each slot's host resolved once for its address; the spelling's once for this match.
            if (!spelling.resolved().isEmpty() && !Collections.disjoint(spelling.resolved(), leaf.resolved(resolver))) {
                return leaf.index();
            }
        }
        return -1;
    }

    /**
     * The slot that holds the leaf at {@code address} by that spelling or another ({@link #slotHolding}), or -1
     * (a stored plan's address: no node id). Fills nothing.
     */
    public int heldSlot(LeafAddress address) {
        return heldSlot(spelling(address), null);
    }

    /** The slot that holds the leaf at {@code address} by that spelling or another ({@link #slotHolding}), or -1. */
    private int heldSlot(LeafSpelling spelling, String node) {
        int slot = slotOf(spelling.address());
        return slot >= 0 ? slot : slotHolding(spelling, node);
    }

    /** Fills the first vacant slot with the leaf at {@code address}, telling {@link #onSlotFilled}; -1 when none is. */
    private int fillVacant(LeafAddress address) {
        for (LeafStatus leaf : leaves) {
            if (leaf.vacant() && leaf.fill(address)) {
                slotFilled.forEach(listener -> listener.accept(leaf.index()));
                return leaf.index();
            }
        }
        return -1;
    }

    /** As {@link #fillSlot(LeafAddress, String)} for a leaf whose node id is unknown. */
    public synchronized int fillSlot(LeafAddress address) {
        return fillSlot(address, null);
    }

    /**
     * The slot of the leaf at {@code address}, filling the first vacant slot with it when none holds it
     * yet, by this spelling or another ({@link #slotHolding}), and telling {@link #onSlotFilled}. Slots are
     * this root's own numbering: another root may give the same leaf another slot, so nothing shared
     * between roots names a slot.
     *
     * @param node the node id the leaf registered under; null or "" when unknown
     * @return its slot, or -1 when it has none and every slot is taken
     */
    public synchronized int fillSlot(LeafAddress address, String node) {
        return fillSlot(spelling(address), node);
    }

    /** As {@link #fillSlot(LeafAddress, String)}, the host resolved at most once for all the calls given it. */
    synchronized int fillSlot(LeafSpelling spelling, String node) {
        int slot = heldSlot(spelling, node);
        return slot >= 0 ? slot : fillVacant(spelling.address());
    }

    /**
     * The slots of the leaves at {@code addresses} (a stored plan's), filling a vacant slot for each that
     * none holds yet, by its spelling or another: all of them, or, when there are not enough vacant slots
     * for those new here, none.
     *
     * @return by address, in order; null when nothing was filled for lack of vacant slots
     */
    public synchronized int[] fillSlots(List<LeafAddress> addresses) {
        int[] slots = new int[addresses.size()];
        LeafSpelling[] spellings = new LeafSpelling[slots.length]; // each host resolved once for both passes
        List<LeafAddress> fresh = new ArrayList<>();
        for (int i = 0; i < slots.length; i++) {
            spellings[i] = spelling(addresses.get(i));
            slots[i] = heldSlot(spellings[i], null);
            if (slots[i] < 0 && !fresh.contains(addresses.get(i))) {
                fresh.add(addresses.get(i));
            }
        }
        if (fresh.size() > leaves.size() - filledSlots()) {
            return null;
        }
        for (int i = 0; i < slots.length; i++) {
            if (slots[i] < 0) {
                slots[i] = fillSlot(spellings[i], null);
            }
        }
        return slots;
    }

    /** As {@link #fillSlot(LeafAddress, String, long, SlotReuse)} for a leaf whose node id is unknown. */
    public synchronized int fillSlot(LeafAddress address, long nowMillis, SlotReuse reuse) {
        return fillSlot(address, null, nowMillis, reuse);
    }

    /**
     * As {@link #fillSlot(LeafAddress, String)}, and when no slot is vacant, takes over the one {@code reuse}
     * chooses (its leaf left membership long enough ago and holds nothing: {@link SlotReuse}): the
     * slot's status, probation, slow start and stale marks are reset, each {@link #onSlotReused}
     * listener is told, then each {@link #onSlotFilled} one, as for a vacant slot.
     *
     * @param node      the node id the leaf registered under; null or "" when unknown
     * @param nowMillis now on the membership's clock (epoch milliseconds)
     * @return its slot, or -1 when every slot is taken and none may be reused ({@link #slotsFull} says why)
     */
    public synchronized int fillSlot(LeafAddress address, String node, long nowMillis, SlotReuse reuse) {
        return fillSlot(spelling(address), node, nowMillis, reuse);
    }

    /**
     * As {@link #fillSlot(LeafAddress, String, long, SlotReuse)}, the address's host resolved at most once for
     * all the calls given it.
     */
    synchronized int fillSlot(LeafSpelling spelling, String node, long nowMillis, SlotReuse reuse) {
        LeafAddress address = spelling.address();
        int slot = heldSlot(spelling, node);
        if (slot >= 0) {
            return slot;
        }
        slot = fillVacant(address);
        if (slot >= 0) {
            filledAtMillis[slot] = nowMillis;
            return slot;
        }
        List<SlotReuse.Filled> filled = filledForReuse();
        slot = reuse.choose(filled, nowMillis);
        if (slot < 0) {
            slotsFull = "leaf " + address + " found none of the " + leaves.size() + " leaf slots (--leaf-slots) vacant"
                    + " and none to reuse: " + reuse.whyNone(filled, nowMillis);
            return -1;
        }
        LeafStatus leaf = leaves.get(slot);
        LeafAddress before = leaf.address();
        try {
            leaf.reuse(address);
        } catch (IllegalStateException e) {
            // A connection to the old address became ready since the decision: its leaf is not gone.
            slotsFull = "leaf " + address + " found none of the " + leaves.size() + " leaf slots (--leaf-slots) vacant"
                    + " and none to reuse: " + e.getMessage();
            return -1;
        }
        filledAtMillis[slot] = nowMillis;
        probation.forget(slot);
        slowStart.forget(slot);
        staleReplicas.clearLeaf(slot);
        int reused = slot;
        slotReused.forEach(listener -> listener.reused(reused, before, address));
        slotFilled.forEach(listener -> listener.accept(reused));
        return slot;
    }

    private List<SlotReuse.Filled> filledForReuse() {
        MembershipView view = membership;
        PlacementSnapshot now = placement;
        List<SlotReuse.Filled> filled = new ArrayList<>();
        for (LeafStatus leaf : leaves) {
            int slot = leaf.index();
            if (leaf.vacant() || view == null) {
                continue;
            }
            boolean holdsCopies = now.targetOfLeaf()[slot].length > 0 || now.serving().partitionsOf(slot).length > 0
                    || writeReplicaOn.test(slot);
            filled.add(new SlotReuse.Filled(slot, view.leaves().get(slot), leaf.readyConnections() > 0, holdsCopies,
                    filledAtMillis[slot]));
        }
        return filled;
    }

    /**
     * Why the last leaf turned away found no slot (every slot taken, none reusable), for {@code /cluster};
     * null when none ever was.
     */
    public String slotsFull() {
        return slotsFull;
    }

    /**
     * Where {@link #fillSlot} tells each slot filled at run time (the fan-out dials it; the meters name it).
     * Listeners are called under this cluster's lock, on the thread that filled the slot: they must not
     * block (hand work to an event loop, as the fan-out does) nor wait on a thread that may fill a slot.
     */
    public void onSlotFilled(IntConsumer listener) {
        slotFilled.add(listener);
    }

    /** Told when another leaf takes over a slot whose leaf left for good. */
    @FunctionalInterface
    public interface SlotReused {
        /** {@code slot}'s leaf was at {@code before}; the one at {@code now} takes it (its status is reset already). */
        void reused(int slot, LeafAddress before, LeafAddress now);
    }

    /** Where {@link #fillSlot(LeafAddress, long, SlotReuse)} tells each slot another leaf takes over. */
    public void onSlotReused(SlotReused listener) {
        slotReused.add(listener);
    }

    /**
     * Leaves {@code slot} vacant again, when that is clean: it was filled for a leaf that turned out to be
     * another slot's (another spelling of its address, {@link #relocate}), no connection to it was ever
     * ready, none is open past its handshake, and it holds no copy (placement or write path). Each
     * {@link #onSlotVacated} listener is told; its address no longer names a slot.
     *
     * @return whether it was left vacant (false: it stays filled, and its handshakes are refused as another
     *         slot's leaf's)
     */
    public synchronized boolean vacate(int slot) {
        LeafStatus leaf = leaves.get(slot);
        PlacementSnapshot now = placement;
        if (leaf.vacant() || leaf.everReady() || leaf.readyConnections() > 0 || nodeClaims.claimed(slot)
                || now.targetOfLeaf()[slot].length > 0 || now.serving().partitionsOf(slot).length > 0
                || writeReplicaOn.test(slot)) {
            return false;
        }
        leaf.vacate();
        filledAtMillis[slot] = Long.MIN_VALUE;
        probation.forget(slot);
        slowStart.forget(slot);
        staleReplicas.clearLeaf(slot);
        slotVacated.forEach(listener -> listener.accept(slot));
        return true;
    }

    /** Where {@link #vacate} tells each slot left vacant again (the fan-out stops dialling it; the meters go). */
    public void onSlotVacated(IntConsumer listener) {
        slotVacated.add(listener);
    }

    /** The node ids the slots' connections announced, which judges every handshake ({@link NodeClaims}). */
    public NodeClaims nodeClaims() {
        return nodeClaims;
    }

    /** Moves a node's registration from one slot to another ({@link LeafMembers}). */
    @FunctionalInterface
    public interface Relocation {
        /** {@code to}'s connection announced {@code node}, which membership placed in {@code from}. */
        void relocate(NodeId node, int from, int to);
    }

    /** Where {@link #relocate} goes: the membership's, set once. */
    public void onRelocation(Relocation relocation) {
        this.relocation = relocation;
    }

    /**
     * Slot {@code to}'s connection announced {@code node}, which membership placed in slot {@code from}, a
     * slot filled for another spelling of the leaf's address that never had a ready connection
     * ({@link LeafIdentity.Verdict.Relocate}): membership moves the registration to {@code to} and leaves
     * {@code from} vacant when that is clean. From an event loop: the membership does it on its own thread.
     */
    public void relocate(NodeId node, int from, int to) {
        relocation.relocate(node, from, to);
    }

    /**
     * Whether the write path names a replica on a slot (it holds writes a slot's next leaf must not
     * inherit): a slot it names is never reused. The write path's, set once.
     */
    public void writeReplicas(IntPredicate namesSlot) {
        this.writeReplicaOn = namesSlot;
    }

    /** Slots a leaf has filled (the listed leaves and those that joined since). */
    public int filledSlots() {
        return (int) leaves.stream().filter(leaf -> !leaf.vacant()).count();
    }

    /** The index every leaf must serve, and the parser for its queries. */
    public ServedIndex index() {
        return index;
    }

    /**
     * The serving assignment: which leaves searches may choose for each partition. Fixed unless the
     * placement service publishes a new one; one volatile read, no lock.
     */
    public PartitionAssignment assignment() {
        return placement.serving();
    }

    /** The assignment as searches and leaves see it now: serving copies, and each leaf's target. */
    public PlacementSnapshot placement() {
        return placement;
    }

    /** Publishes a new placement (copy-on-write): searches starting after it choose from its serving copies. */
    public void publish(PlacementSnapshot snapshot) {
        if (snapshot.serving().partitions() != config.partitions() || snapshot.serving().leaves() != leaves.size()) {
            throw new IllegalArgumentException("placement for " + snapshot.serving().partitions() + " partitions and "
                    + snapshot.serving().leaves() + " leaves (expected: " + config.partitions() + " and " + leaves.size() + ")");
        }
        this.placement = snapshot;
    }

    /** The placement controllers' report for {@code /cluster}; null when no placement service runs. */
    public PlacementReport placementReport() {
        return placementReport.get();
    }

    /** Where {@link #placementReport()} comes from (the placement service). */
    public void placementReport(Supplier<PlacementReport> source) {
        this.placementReport = source;
    }

    /** Who decides placement among the roots sharing a plan ({@code --zk}); null for a root that shares none. */
    public PlacementLeadership placementLeadership() {
        return placementLeadership.get();
    }

    /** Where {@link #placementLeadership()} comes from (the shared placement). */
    public void placementLeadership(Supplier<PlacementLeadership> source) {
        this.placementLeadership = source;
    }

    /**
     * The leaves' membership in ZooKeeper as this root last heard it ({@link LeafMembers}); null for a
     * root without {@code --zk}. One volatile read: never waits on ZooKeeper.
     */
    public MembershipView membership() {
        return membership;
    }

    /** Publishes the membership as {@link LeafMembers} heard it (copy-on-write). */
    public void publishMembership(MembershipView view) {
        if (view.leaves().size() != leaves.size()) {
            throw new IllegalArgumentException("membership of " + view.leaves().size() + " leaves (expected: "
                    + leaves.size() + ")");
        }
        this.membership = view;
    }

    /** Each partition's query load, recorded as leaves answer. */
    public PartitionLoad partitionLoad() {
        return partitionLoad;
    }

    /** Told of every assignment acknowledgement a leaf sends. */
    @FunctionalInterface
    public interface AssignListener {
        /**
         * @param version the target version the leaf acknowledged (the assignment's request id)
         * @param open    the partitions the leaf has open
         * @param error   empty, or why some partition did not open
         */
        void acked(int leaf, long version, Set<Integer> open, String error);
    }

    /** Where assignment acknowledgements go (the placement service); one listener. */
    public void onAssignAck(AssignListener listener) {
        this.assignListener = listener;
    }

    /** A leaf acknowledged an assignment: called by its connections' event loops. */
    public void assignAcked(int leaf, long version, Set<Integer> open, String error) {
        assignListener.acked(leaf, version, open, error);
    }

    public List<LeafStatus> leaves() {
        return leaves;
    }

    public LeafStatus leaf(int index) {
        return leaves.get(index);
    }

    public void partitionDocCount(int partition, long docs) {
        partitionDocs.set(partition, docs);
    }

    /** Documents in {@code partition}, or -1 while no leaf holding it has reported. */
    public long partitionDocCount(int partition) {
        return partitionDocs.get(partition);
    }

    /** Documents in the partitions reported so far. */
    public long knownDocs() {
        long total = 0;
        for (int p = 0; p < partitionDocs.length(); p++) {
            total += Math.max(0, partitionDocs.get(p));
        }
        return total;
    }

    /**
     * 0..P-1: the partitions of a search without a routing value. Shared by every search, so
     * callers must not change it.
     */
    public int[] allPartitions() {
        return allPartitions;
    }

    /**
     * The fraction of the index's documents in the given partitions. Falls back to the fraction
     * of partitions while document counts are unknown.
     */
    public double docsFraction(boolean[] answered) {
        return docsFraction(null, answered);
    }

    /**
     * The fraction of the documents of partitions {@code among} (null: every partition) in those
     * of them {@code answered} marks (indexed by partition): the coverage of a search that asked
     * only the partitions of its routing value. Falls back to the fraction of partitions while
     * document counts are unknown.
     */
    public double docsFraction(int[] among, boolean[] answered) {
        int count = among == null ? answered.length : among.length;
        long all = 0;
        long covered = 0;
        int answeredCount = 0;
        for (int i = 0; i < count; i++) {
            int p = among == null ? i : among[i];
            long docs = partitionDocs.get(p);
            if (docs < 0) {
                all = -1;
            } else if (all >= 0) {
                all += docs;
            }
            if (answered[p]) {
                answeredCount++;
                covered += Math.max(0, docs);
            }
        }
        if (all <= 0) {
            return count == 0 ? 0 : (double) answeredCount / count;
        }
        return (double) covered / all;
    }

    /**
     * True when every leaf is either up or refused ({@link LeafStatus#refusal()}): waiting longer
     * for a refused leaf would not make it ready.
     */
    public boolean allLeavesSettled() {
        return leaves.stream().allMatch(leaf -> leaf.vacant() || leaf.state() == LeafStatus.State.UP
                || leaf.refusal() != null);
    }

    /** True when every connection to every leaf is ready (vacant slots hold no leaf). */
    public boolean allLeavesUp() {
        return leaves.stream().allMatch(leaf -> leaf.vacant() || leaf.state() == LeafStatus.State.UP);
    }
}
