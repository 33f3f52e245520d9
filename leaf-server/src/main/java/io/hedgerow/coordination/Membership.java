package io.hedgerow.coordination;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.utils.ZKPaths;

/**
 * The live leaves as a root sees them: a {@link CuratorCache} of the {@code leaves/} znodes that
 * {@link LeafRegistration}s keep, with listeners for joins and departures.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe. {@link #liveLeaves} reads the local cache and
 * never waits on ZooKeeper; it may lag ZooKeeper by the time a watch event takes to arrive, and while
 * disconnected it shows the last leaves known. Listeners must be added before {@link #start}; they
 * hear the leaves present at start as joins, then {@link #awaitInitialized} returns.
 */
public final class Membership implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Membership.class.getName());

    private final CuratorCache cache;
    private final String leavesPath;
    private final CountDownLatch initialized = new CountDownLatch(1);

    public Membership(CoordinationClient client) {
        this.leavesPath = client.paths().leaves();
        this.cache = CuratorCache.build(client.curator(), leavesPath);
        client.attach(this);
        cache.listenable().addListener(CuratorCacheListener.builder().forInitialized(initialized::countDown).build());
    }

    /**
     * Adds a listener; before {@link #start} only. It hears {@link MembershipListener#joined} when a
     * leaf's znode appears or its address changes, and {@link MembershipListener#published} on every
     * write of its entry (a leaf publishing load writes it every few seconds).
     */
    public void addListener(MembershipListener listener) {
        cache.listenable().addListener(CuratorCacheListener.builder()
                .forCreatesAndChanges((before, now) -> {
                    NodeId node = leafOf(now);
                    if (node == null) {
                        return;
                    }
                    LeafEntry entry = entry(now);
                    if (entry == null) {
                        return;
                    }
                    LeafEntry old = before == null ? null : entry(before);
                    if (old == null || !old.address().equals(entry.address())) {
                        listener.joined(node, entry.address());
                    }
                    listener.published(node, entry);
                })
                .forDeletes(gone -> {
                    NodeId node = leafOf(gone);
                    if (node != null) {
                        listener.left(node);
                    }
                })
                .forInitialized(listener::initialized)
                .build());
    }

    public void start() {
        cache.start();
    }

    /** Waits until the cache holds the leaves that were live when it started; false if it did not in time. */
    public boolean awaitInitialized(Duration patience) throws InterruptedException {
        return initialized.await(patience.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The live leaves and their addresses, by node id, from the local cache. */
    public Map<NodeId, String> liveLeaves() {
        Map<NodeId, String> leaves = new TreeMap<>();
        entries().forEach((node, entry) -> leaves.put(node, entry.address()));
        return leaves;
    }

    /** The live leaves and what each published last, by node id, from the local cache. */
    public Map<NodeId, LeafEntry> entries() {
        Map<NodeId, LeafEntry> leaves = new TreeMap<>();
        cache.stream().forEach(data -> {
            NodeId node = leafOf(data);
            LeafEntry entry = node == null ? null : entry(data);
            if (entry != null) {
                leaves.put(node, entry);
            }
        });
        return leaves;
    }

    @Override
    public void close() {
        cache.close();
    }

    /** The leaf a znode of the cache stands for, or null for the {@code leaves} znode itself. */
    private NodeId leafOf(ChildData data) {
        ZKPaths.PathAndNode split = ZKPaths.getPathAndNode(data.getPath());
        if (!split.getPath().equals(leavesPath)) {
            return null;
        }
        try {
            return NodeId.of(split.getNode());
        } catch (IllegalArgumentException e) {
            LOG.log(System.Logger.Level.WARNING, () -> "ignoring " + data.getPath() + ": " + e.getMessage());
            return null;
        }
    }

    /** The entry a leaf's znode holds, or null (logged) when it does not parse. */
    private static LeafEntry entry(ChildData data) {
        try {
            return LeafEntryCodec.decode(data.getData());
        } catch (IllegalArgumentException e) {
            LOG.log(System.Logger.Level.WARNING, () -> "ignoring " + data.getPath() + ": " + e.getMessage());
            return null;
        }
    }
}
