package io.hedgerow.coordination;

import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * {@link ClusterStore} on ZooKeeper through Curator: one znode per partition
 * ({@link ClusterPaths#partition}), JSON bytes ({@link PartitionStateCodec}), compare-and-set with
 * {@code setData().withVersion(v)}. It only moves bytes: the decisions are
 * {@link PartitionStateTransitions}'.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe (Curator's client is); every call blocks on
 * ZooKeeper. A {@link UpdateOutcome.Written} state is durable on a quorum of the ensemble. ZooKeeper's
 * version errors map to outcomes (bad version or existing node: {@link UpdateOutcome.Conflict}; no
 * node: {@link UpdateOutcome.Missing}); any other failure is a {@link CoordinationException}.
 */
public final class CuratorClusterStore implements ClusterStore {
    private final CuratorFramework curator;
    private final ClusterPaths paths;
    private final PartitionStateCodec codec = new PartitionStateCodec();

    public CuratorClusterStore(CoordinationClient client) {
        this.curator = client.curator();
        this.paths = client.paths();
    }

    @Override
    public Optional<PartitionState> read(int partition) throws CoordinationException {
        String path = paths.partition(partition);
        Stat stat = new Stat();
        byte[] bytes;
        try {
            bytes = curator.getData().storingStatIn(stat).forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
        } catch (Exception e) {
            throw CoordinationException.failed("reading partition " + partition + " at " + path, e);
        }
        return Optional.of(codec.decode(partition, bytes, stat.getVersion()));
    }

    @Override
    public UpdateOutcome create(PartitionState initial) throws CoordinationException {
        String path = paths.partition(initial.partition());
        try {
            curator.create().creatingParentsIfNeeded().forPath(path, codec.encode(initial));
        } catch (KeeperException.NodeExistsException e) {
            return new UpdateOutcome.Conflict(initial.partition(), PartitionState.UNSTORED);
        } catch (Exception e) {
            throw CoordinationException.failed("creating partition " + initial.partition() + " at " + path, e);
        }
        return new UpdateOutcome.Written(initial.withVersion(0));
    }

    @Override
    public UpdateOutcome compareAndSet(PartitionState current, PartitionState next) throws CoordinationException {
        if (current.partition() != next.partition()) {
            throw new IllegalArgumentException("next.partition: " + next.partition() + " (expected: "
                    + current.partition() + ", the partition of the state it replaces)");
        }
        if (current.version() == PartitionState.UNSTORED) {
            throw new IllegalArgumentException("current.version: " + current.version()
                    + " (expected: the version of a stored state; use create for a new partition)");
        }
        String path = paths.partition(current.partition());
        Stat stat;
        try {
            stat = curator.setData().withVersion(current.version()).forPath(path, codec.encode(next));
        } catch (KeeperException.BadVersionException e) {
            return new UpdateOutcome.Conflict(current.partition(), current.version());
        } catch (KeeperException.NoNodeException e) {
            return new UpdateOutcome.Missing(current.partition());
        } catch (Exception e) {
            throw CoordinationException.failed("writing partition " + current.partition() + " at " + path + " over version "
                    + current.version(), e);
        }
        return new UpdateOutcome.Written(next.withVersion(stat.getVersion()));
    }
}
