package io.hedgerow.root.cluster;

import io.hedgerow.common.stats.SlidingLatencyWindow;
import io.hedgerow.common.time.Ticker;
import java.net.InetAddress;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the root knows of one leaf, shared by all event loops: how many of its connections are
 * ready, the last problem seen, and its recent sub-request latency.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe. Counters and the latency window are updated
 * by event loops without locks; readers see a recent, not an atomic, picture.
 */
public final class LeafStatus {
    /** DRAINING: the leaf said it is shutting down; it gets no new sub-requests until it is back. */
    public enum State { UP, DEGRADED, DOWN, DRAINING }

    private final int index;
    /** Null while the slot is vacant; set when a leaf fills it ({@link #fill}) or takes it over ({@link #reuse}). */
    private volatile LeafAddress address;
    /** {@code host:port}, made once: twins and errors name the leaf on the request path. */
    private volatile String name;
    private final int connections;
    private final AtomicInteger readyConnections = new AtomicInteger();
    private final Ticker ticker;
    /** Replaced, not cleared, when another leaf takes the slot over ({@link #reuse}). */
    private volatile SlidingLatencyWindow latency;
    private volatile SlidingLatencyWindow leafTime;
    private final LongAdder subRequests = new LongAdder();
    private final LongAdder failures = new LongAdder();
    private volatile String lastError;
    private volatile String refusal;
    private volatile boolean draining;
    private volatile boolean everReady;
    private volatile Supervision supervision;
    /** The leaf's HTTP port as its HelloAck named it ("": none, or not heard yet). */
    private volatile String httpAddress = "";
    /** The node id the leaf's last accepted HelloAck announced ("": none, an older leaf, or not heard yet). */
    private volatile String announcedNode = "";
    /**
     * Other spellings of the address that reach this slot's leaf (a registration at one of them was found to
     * be this slot's leaf: {@link #spelledAlso}); replaced, never changed in place.
     */
    private volatile Set<LeafAddress> spellings = Set.of();
    /** What the slot's address resolves to, and for which address (resolved once per address: {@link #resolved}). */
    private volatile Resolution resolution;
    /** Whether a dial of this slot's present leaf has ended: answered, refused, failed or closed. */
    private volatile boolean dialSettled;

    LeafStatus(int index, LeafAddress address, int connections, Ticker ticker) {
        this(index, address, connections, ticker, true);
    }

    /**
     * @param latencyWindows whether to keep the two latency windows {@code /cluster} reports (about
     *                       half a megabyte a leaf: a simulation of thousands of leaves keeps none)
     */
    LeafStatus(int index, LeafAddress address, int connections, Ticker ticker, boolean latencyWindows) {
        this.index = index;
        this.address = address;
        this.name = address == null ? vacantName(index) : address.toString();
        this.connections = connections;
        this.ticker = ticker;
        this.latency = latencyWindows ? SlidingLatencyWindow.tenSeconds(ticker) : null;
        this.leafTime = latencyWindows ? SlidingLatencyWindow.tenSeconds(ticker) : null;
    }

    public int index() {
        return index;
    }

    private static String vacantName(int slot) {
        return "(vacant slot " + slot + ")";
    }

    /**
     * Whether no leaf has filled this slot yet: it has no address, no connection is opened to it, it
     * holds no copy, and readiness and health do not count it.
     */
    public boolean vacant() {
        return address == null;
    }

    /**
     * A leaf at {@code leaf} takes this vacant slot (it registered in ZooKeeper at run time); its
     * connections dial it from now on.
     *
     * @return false when the slot is already filled (by any address)
     */
    public synchronized boolean fill(LeafAddress leaf) {
        if (address != null) {
            return false;
        }
        this.name = leaf.toString();
        this.address = leaf; // last: a reader that sees the address sees its name
        return true;
    }

    /**
     * Another leaf, at {@code leaf}, takes over this slot, whose leaf left for good
     * ({@link ClusterState#fillSlot(LeafAddress, long, SlotReuse)}): it starts afresh, with none of the
     * old leaf's latencies, counts, errors, refusal, draining or supervision, and is not "back" when it
     * connects (it never was here).
     *
     * @throws IllegalStateException when the slot is vacant or a connection to it is ready
     */
    public synchronized void reuse(LeafAddress leaf) {
        if (address == null || readyConnections.get() != 0) {
            String now = address == null ? "vacant" : readyConnections.get() + " ready connections to " + address;
            throw new IllegalStateException("slot " + index + ": " + now
                    + " (expected: a filled slot no connection is ready to)");
        }
        forgetLeaf();
        this.name = leaf.toString();
        this.address = leaf;
    }

    /**
     * The slot is vacant again ({@link ClusterState#vacate}): a leaf filled it for an address that turned out to
     * be another spelling of another slot's leaf, before any connection to it was ready. It starts afresh, as
     * a reused slot does.
     *
     * @throws IllegalStateException when the slot is vacant already, or was ever ready with its present leaf
     */
    synchronized void vacate() {
        if (address == null || everReady) {
            throw new IllegalStateException("slot " + index + ": " + (address == null ? "vacant" : "was ready with "
                    + address) + " (expected: a filled slot never ready)");
        }
        forgetLeaf();
        this.address = null; // first: a reader that sees a name of a leaf may still see its address
        this.name = vacantName(index);
    }

    /** Forgets all the root learnt of the slot's leaf (another leaf takes the slot, or none). */
    private void forgetLeaf() {
        subRequests.reset();
        failures.reset();
        lastError = null;
        refusal = null;
        draining = false;
        everReady = false;
        supervision = null;
        httpAddress = "";
        announcedNode = "";
        spellings = Set.of();
        dialSettled = false;
        if (latency != null) { // kept windows are replaced, none are started
            latency = SlidingLatencyWindow.tenSeconds(ticker);
            leafTime = SlidingLatencyWindow.tenSeconds(ticker);
        }
    }

    private record Resolution(LeafAddress of, Set<InetAddress> addresses) {
    }

    /**
     * What the slot's host resolves to (empty when it does not, or the slot is vacant): resolved once for
     * each address the slot holds, so that matching registrations against the slots does not ask the
     * resolver for every slot at every membership event. A host that did not resolve then stays
     * unresolved for the slot's leaf (the node ids its connections announce still tell).
     */
    Set<InetAddress> resolved(HostResolver resolver) {
        LeafAddress now = address;
        Resolution known = resolution;
        if (now == null) {
            return Set.of();
        }
        if (known == null || !known.of().equals(now)) {
            known = new Resolution(now, resolver.addressesOf(now.host()));
            resolution = known;
        }
        return known.addresses();
    }

    /** Whether a connection to the slot's present leaf was ever ready. */
    public boolean everReady() {
        return everReady;
    }

    /** Other spellings of the slot's address known to reach its leaf ({@link #spelledAlso}). */
    public Set<LeafAddress> spellings() {
        return spellings;
    }

    /**
     * Remembers that the leaf at {@code other} is this slot's leaf (it registered there, and this slot's
     * connection announced its node id, or its host resolved to this slot's): a later registration there,
     * after a restart say, is this slot's at once, before any connection of it is ready again.
     */
    public synchronized void spelledAlso(LeafAddress other) {
        if (address != null && !other.equals(address) && !spellings.contains(other)) {
            Set<LeafAddress> more = new HashSet<>(spellings);
            more.add(other);
            spellings = Set.copyOf(more);
        }
    }

    /**
     * Whether a dial of the slot's present leaf has ended: its Hello answered (accepted or refused), the
     * connect failed, or the connection closed. A slot filled at run time is not used while a listed slot's
     * first dial has not ended: that listed leaf may be the same leaf under another spelling
     * ({@link LeafIdentity#judge}).
     */
    public boolean dialSettled() {
        return dialSettled;
    }

    /** A dial of the slot's leaf ended ({@link #dialSettled}). */
    public void dialEnded() {
        dialSettled = true;
    }

    /** host:port of the leaf's HTTP port (probes, /metrics), as it last said; "" when it named none. */
    public String httpAddress() {
        return httpAddress;
    }

    /**
     * Remembers the HTTP address the leaf's HelloAck named. A leaf listening on every interface names
     * a wildcard host; the root names it by the host it dials the leaf on instead.
     */
    public void httpAddress(String reported) {
        int colon = reported.lastIndexOf(':');
        LeafAddress address = this.address;
        if (colon > 0 && address != null) {
            String host = reported.substring(0, colon);
            if (host.equals("0.0.0.0") || host.equals("::") || host.equals("0:0:0:0:0:0:0:0")) {
                reported = address.host() + reported.substring(colon);
            }
        }
        httpAddress = reported;
    }

    /**
     * The node id the leaf announced in its last accepted HelloAck ({@code node_id}); "" when it named
     * none (an older leaf) or no handshake was accepted yet. Tells one leaf registered under two spellings
     * of its address from two leaves ({@link ClusterState#slotHolding}).
     */
    public String announcedNode() {
        return announcedNode;
    }

    /** Remembers the node id an accepted HelloAck announced ("" for none). */
    public void announcedNode(String node) {
        announcedNode = node == null ? "" : node;
    }

    /** The leaf's address; null while the slot is {@link #vacant()}. */
    public LeafAddress address() {
        return address;
    }

    /** The leaf's {@code host:port}. */
    public String name() {
        return name;
    }

    public State state() {
        if (draining) {
            return State.DRAINING;
        }
        int ready = readyConnections.get();
        return ready == 0 ? State.DOWN : ready == connections ? State.UP : State.DEGRADED;
    }

    public int readyConnections() {
        return readyConnections.get();
    }

    public String lastError() {
        return lastError;
    }

    /** Sub-request round trips of the last ten seconds. */
    public SlidingLatencyWindow latency() {
        return windowOrFail(latency);
    }

    /**
     * Time the leaf itself reports spending on sub-requests of the last ten seconds (queue wait
     * plus service); the rest of the round trip is network and scheduling.
     */
    public SlidingLatencyWindow leafTime() {
        return windowOrFail(leafTime);
    }

    private SlidingLatencyWindow windowOrFail(SlidingLatencyWindow window) {
        if (window == null) {
            throw new IllegalStateException("leaf " + name + " keeps no latency windows (expected: a cluster state made"
                    + " with latency windows)");
        }
        return window;
    }

    public long subRequests() {
        return subRequests.sum();
    }

    public long failures() {
        return failures.sum();
    }

    /**
     * Why the root refuses to use this leaf (another protocol version, another index, an assignment
     * that failed), or null. A refused leaf gets no traffic until a connection to it is ready again.
     */
    public String refusal() {
        return refusal;
    }

    /**
     * The leaf said it is shutting down ({@code LeafDraining}): no new sub-requests go to it until a
     * connection to it is ready again, which only its restarted self can give (a draining leaf
     * accepts no connection).
     */
    public void draining(String reason) {
        draining = true;
        lastError = reason;
    }

    /** Whether the leaf said it is shutting down and has not come back since. */
    public boolean isDraining() {
        return draining;
    }

    /**
     * What the process supervisor of a local cluster says of this leaf's process (only a root that
     * started its leaves knows).
     *
     * @param state    {@code running}, {@code restarting} (it died; a restart is due) or {@code crash_loop}
     *                 (it keeps dying: restarts are slowed down)
     * @param restarts restarts after deaths so far
     * @param detail   the last death and what is done about it; null when it never died
     */
    public record Supervision(String state, int restarts, String detail) {
    }

    public void supervision(Supervision value) {
        supervision = value;
    }

    /** What the process supervisor says of this leaf, or null (a root that did not start its leaves). */
    public Supervision supervision() {
        return supervision;
    }

    /**
     * A connection to the leaf is ready (its assignment acknowledged).
     *
     * @return true when the leaf comes back: no connection of it was ready, and one was before
     */
    public boolean connectionReady() {
        draining = false;
        refusal = null;
        boolean cameBack = readyConnections.getAndIncrement() == 0 && everReady;
        everReady = true;
        return cameBack;
    }

    /**
     * A connection's handshake ended in a refusal: the leaf is not ready on it.
     *
     * @return true when the reason is new (each of the root's connections to a leaf sees the same
     *         refusal: the caller logs only a new one)
     */
    public boolean refused(String reason) {
        lastError = reason;
        boolean changed = !reason.equals(refusal);
        refusal = reason;
        return changed;
    }

    public void connectionLost(String reason) {
        readyConnections.decrementAndGet();
        lastError = reason;
    }

    public void connectFailed(String reason) {
        lastError = reason;
    }

    public void answered(long roundTripNanos, long leafNanos) {
        subRequests.increment();
        SlidingLatencyWindow latency = this.latency;
        SlidingLatencyWindow leafTime = this.leafTime;
        if (latency != null) {
            long now = ticker.nanoTime(); // one clock read for both windows (they share the ticker)
            latency.record(roundTripNanos, now);
            leafTime.record(leafNanos, now);
        }
    }

    public void failed(String reason) {
        subRequests.increment();
        failures.increment();
        lastError = reason;
    }
}
