package io.hedgerow.coordination;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.zookeeper.CreateMode;

/**
 * A leaf's presence in the cluster: an ephemeral znode {@code leaves/<nodeId>} holding its
 * {@link LeafEntry} (its address, and the load it publishes: {@link #publish}), there while its
 * session lives. It is Curator's {@link PersistentNode}: created again after a
 * session expires and the leaf reconnects (a leaf that was paused too long rejoins), and adopted when
 * a node of the same name is still there from an earlier session (a leaf restarted within the session
 * timeout). So two live leaves given the same node id would share one znode: node ids must be unique.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe. After {@link #register} returns, the znode exists;
 * after {@link #close}, it is deleted (Curator keeps trying in the background if the connection is
 * down), and a closed or expired session removes it too.
 */
public final class LeafRegistration implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(LeafRegistration.class.getName());
    private final PersistentNode node;
    private final NodeId nodeId;

    private LeafRegistration(PersistentNode node, NodeId nodeId) {
        this.node = node;
        this.nodeId = nodeId;
    }

    /**
     * Registers leaf {@code nodeId} at {@code address} ({@code host:port} for roots to connect to),
     * waiting at most {@code patience} for the znode.
     */
    public static LeafRegistration register(CoordinationClient client, NodeId nodeId, String address, Duration patience)
            throws CoordinationException {
        return register(client, nodeId, LeafEntry.addressOnly(address), patience);
    }

    /** Registers leaf {@code nodeId} with {@code entry}, waiting at most {@code patience} for the znode. */
    public static LeafRegistration register(CoordinationClient client, NodeId nodeId, LeafEntry entry,
            Duration patience) throws CoordinationException {
        String path = client.paths().leaf(nodeId);
        PersistentNode node = new PersistentNode(client.curator(), CreateMode.EPHEMERAL, false, path,
                LeafEntryCodec.encode(entry));
        node.start();
        boolean created;
        try {
            created = node.waitForInitialCreate(patience.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closeQuietly(node);
            throw new CoordinationException("interrupted while registering leaf " + nodeId + " at " + path, e);
        }
        if (!created) {
            closeQuietly(node);
            throw new CoordinationException("leaf " + nodeId + ": its znode " + path + " was not created within "
                    + patience.toMillis() + " ms");
        }
        return client.attach(new LeafRegistration(node, nodeId));
    }

    public NodeId nodeId() {
        return nodeId;
    }

    /**
     * Replaces the znode's data with {@code entry} (also the data a znode created again after an
     * expired session starts with). Curator writes it in the background: this does not wait on ZooKeeper.
     */
    public void publish(LeafEntry entry) throws CoordinationException {
        try {
            node.setData(LeafEntryCodec.encode(entry));
        } catch (Exception e) {
            throw CoordinationException.failed("publishing " + entry + " at " + node.getActualPath(), e);
        }
    }

    @Override
    public void close() {
        closeQuietly(node);
    }

    private static void closeQuietly(PersistentNode node) {
        try {
            node.close();
        } catch (IOException | RuntimeException e) {
            // Deleting the znode failed (ZooKeeper unreachable): it is ephemeral and goes with the
            // session, so closing goes on; throwing here ended a joining leaf's retries.
            LOG.log(System.Logger.Level.WARNING, "leaf znode " + node.getActualPath()
                    + ": deleting it on close failed (it goes with the session): " + e);
        }
    }
}
