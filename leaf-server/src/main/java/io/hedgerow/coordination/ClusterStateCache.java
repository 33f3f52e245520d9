package io.hedgerow.coordination;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.utils.ZKPaths;

/**
 * Every partition's state, kept locally for the request path so that ZooKeeper stays off it: a
 * {@link CuratorCache} of {@code partitions/} whose events are decoded once into a map that
 * {@link #get} reads without waiting.
 *
 * <p>A cached state is a hint, not a lease: it may be behind ZooKeeper by a watch event (or by the
 * whole time the connection is down). Routing a write to a primary that has since been replaced is
 * caught where it matters: the deposed primary's in-sync changes are refused for their term
 * ({@link PartitionStateTransitions}) and leaves refuse operations of an older term.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe; {@link #get} and {@link #snapshot} never block.
 * Each partition's entry moves through its versions in ZooKeeper's order. A znode that cannot be
 * decoded removes the partition from the cache (unknown is safer than stale) and is logged.
 * Listeners are called on Curator's event thread, one event at a time.
 */
public final class ClusterStateCache implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ClusterStateCache.class.getName());

    private final CuratorCache cache;
    private final String partitionsPath;
    private final PartitionStateCodec codec = new PartitionStateCodec();
    private final Map<Integer, PartitionState> states = new ConcurrentHashMap<>();
    private final CountDownLatch initialized = new CountDownLatch(1);
    private final List<PartitionStateListener> listeners = new CopyOnWriteArrayList<>();

    public ClusterStateCache(CoordinationClient client) {
        this.partitionsPath = client.paths().partitions();
        this.cache = CuratorCache.build(client.curator(), partitionsPath);
        client.attach(this);
        cache.listenable().addListener(CuratorCacheListener.builder()
                .forCreatesAndChanges((before, now) -> stored(now))
                .forDeletes(this::deleted)
                .forInitialized(initialized::countDown)
                .build());
    }

    /** Adds a listener; it hears each change after {@link #get} shows it. */
    public void addListener(PartitionStateListener listener) {
        listeners.add(listener);
    }

    public void start() {
        cache.start();
    }

    /** Waits until the cache holds every partition stored when it started; false if it did not in time. */
    public boolean awaitInitialized(Duration patience) throws InterruptedException {
        return initialized.await(patience.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The partition's last known state; never blocks. */
    public Optional<PartitionState> get(int partition) {
        return Optional.ofNullable(states.get(partition));
    }

    /** Every known partition's state, by partition (each entry consistent; entries may be of different moments). */
    public Map<Integer, PartitionState> snapshot() {
        return new TreeMap<>(states);
    }

    @Override
    public void close() {
        cache.close();
    }

    private void stored(ChildData data) {
        int partition = partitionOf(data);
        if (partition < 0) {
            return;
        }
        PartitionState state;
        try {
            state = codec.decode(partition, data.getData(), data.getStat().getVersion());
        } catch (CoordinationException e) {
            LOG.log(System.Logger.Level.WARNING, e.getMessage(), e);
            deleted(partition);
            return;
        }
        states.put(partition, state);
        for (PartitionStateListener listener : listeners) {
            listener.changed(state);
        }
    }

    private void deleted(ChildData data) {
        int partition = partitionOf(data);
        if (partition >= 0) {
            deleted(partition);
        }
    }

    private void deleted(int partition) {
        states.remove(partition);
        for (PartitionStateListener listener : listeners) {
            listener.removed(partition);
        }
    }

    /** The partition a znode of the cache stands for, or -1 for {@code partitions} itself or a stray name. */
    private int partitionOf(ChildData data) {
        ZKPaths.PathAndNode split = ZKPaths.getPathAndNode(data.getPath());
        if (!split.getPath().equals(partitionsPath)) {
            return -1;
        }
        try {
            int partition = Integer.parseInt(split.getNode());
            return partition >= 0 ? partition : -1;
        } catch (NumberFormatException e) {
            LOG.log(System.Logger.Level.WARNING, () -> "ignoring " + data.getPath() + " (expected: a partition number)");
            return -1;
        }
    }
}
