package io.hedgerow.root.placement.shared;

import io.hedgerow.coordination.CoordinationClient;
import io.hedgerow.coordination.CoordinationException;
import io.hedgerow.root.placement.PlacementPlan;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The placement plan's znode ({@code ClusterPaths#placement}): read, and written only by
 * compare-and-set on the version last read or written, as {@code CuratorClusterStore} writes a
 * partition's state. A write that finds another version answers empty: someone else wrote since.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe; every call blocks on ZooKeeper, so it belongs on
 * the coordination thread of {@link SharedPlacement}, never on an event loop or the request path.
 */
final class PlanStore {
    private final CuratorFramework curator;
    private final String path;
    /** Maps the stored plan's addresses to this root's leaf slots; null: by position (tests). */
    private final PlanSlotMapper slots;

    /** Reads plans by position, as written (a test's, or a tool's that only looks). */
    PlanStore(CoordinationClient client) {
        this(client, null);
    }

    PlanStore(CoordinationClient client, PlanSlotMapper slots) {
        this.curator = client.curator();
        this.path = client.paths().placement();
        this.slots = slots;
    }

    String path() {
        return path;
    }

    /**
     * The stored plan, in this root's slots (leaves it names that this root has not met fill vacant slots,
     * all or none, once it is known to fit: {@link PlanSlotMapper}), or empty when none was ever written.
     */
    Optional<StoredPlan> read() throws CoordinationException {
        Stat stat = new Stat();
        byte[] bytes;
        try {
            bytes = curator.getData().storingStatIn(stat).forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
        } catch (Exception e) {
            throw CoordinationException.failed("reading the placement plan at " + path, e);
        }
        try {
            return Optional.of(slots == null ? PlanCodec.decode(bytes, stat.getVersion())
                    : slots.toSlots(PlanCodec.read(bytes), stat.getVersion()));
        } catch (IllegalArgumentException e) {
            throw new CoordinationException("the placement plan at " + path + " cannot be read: " + e.getMessage(), e);
        }
    }

    /**
     * Writes {@code plan} as {@code leader}'s over {@code version} (-1: creates the znode).
     *
     * @return the plan as written, with its new version; empty when the znode was not at {@code version}
     */
    Optional<StoredPlan> write(String leader, PlacementPlan plan, int version) throws CoordinationException {
        byte[] bytes = PlanCodec.encode(leader, plan, slots == null ? null : slots.slots());
        try {
            if (version < 0) {
                curator.create().creatingParentsIfNeeded().forPath(path, bytes);
                return Optional.of(new StoredPlan(leader, plan, 0));
            }
            Stat stat = curator.setData().withVersion(version).forPath(path, bytes);
            return Optional.of(new StoredPlan(leader, plan, stat.getVersion()));
        } catch (KeeperException.NodeExistsException | KeeperException.BadVersionException
                | KeeperException.NoNodeException e) {
            return Optional.empty();
        } catch (Exception e) {
            throw CoordinationException.failed("writing the placement plan at " + path + " over version " + version, e);
        }
    }
}
