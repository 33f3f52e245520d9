package io.hedgerow.coordination;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryUntilElapsed;

/**
 * One process's session with the coordination engine: a started Curator client for one cluster's
 * paths. The store, the caches, the registration and the leader latch of a process share it; closing
 * it closes them (newest first) and then ends the session, which removes this process's ephemeral
 * znodes (its membership) at once. Closing the recipes first matters: a Curator recipe still open on
 * a closed client can loop (a {@code PersistentNode} recreating its znode overflows the stack).
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe. {@link #connect} returns only once connected, so
 * a process that cannot reach ZooKeeper fails at start with the address it tried; later losses of the
 * connection are Curator's to retry (calls then fail with {@link CoordinationException}).
 */
public final class CoordinationClient implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(CoordinationClient.class.getName());
    /** Pause between retries of a call whose connection dropped. */
    private static final int RETRY_SLEEP_MS = 100;

    private final CuratorFramework curator;
    private final CoordinationSettings settings;
    private final Deque<AutoCloseable> recipes = new ArrayDeque<>();

    private CoordinationClient(CuratorFramework curator, CoordinationSettings settings) {
        this.curator = curator;
        this.settings = settings;
    }

    /**
     * Connects to the ensemble, waiting at most the connection timeout.
     *
     * @throws CoordinationException when no connection was made in time (the client is closed)
     */
    public static CoordinationClient connect(CoordinationSettings settings) throws CoordinationException {
        int connectionTimeoutMs = (int) settings.connectionTimeout().toMillis();
        CuratorFramework curator = CuratorFrameworkFactory.builder()
                .connectString(settings.connectString())
                .sessionTimeoutMs((int) settings.sessionTimeout().toMillis())
                .connectionTimeoutMs(connectionTimeoutMs)
                .retryPolicy(new RetryUntilElapsed(connectionTimeoutMs, RETRY_SLEEP_MS))
                .build();
        curator.start();
        boolean connected;
        try {
            connected = curator.blockUntilConnected(connectionTimeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            curator.close();
            throw new CoordinationException("interrupted while connecting to ZooKeeper at " + settings.connectString(), e);
        }
        if (!connected) {
            curator.close();
            throw new CoordinationException("no connection to ZooKeeper at " + settings.connectString() + " within "
                    + settings.connectionTimeout().toMillis() + " ms (expected: a running ensemble there;"
                    + " './hedgerow zk' starts one)");
        }
        return new CoordinationClient(curator, settings);
    }

    public CuratorFramework curator() {
        return curator;
    }

    public ClusterPaths paths() {
        return settings.paths();
    }

    public CoordinationSettings settings() {
        return settings;
    }

    /** The session timeout the server granted (it may differ from the one asked for). */
    public int negotiatedSessionTimeoutMs() throws CoordinationException {
        try {
            return curator.getZookeeperClient().getZooKeeper().getSessionTimeout();
        } catch (Exception e) {
            throw CoordinationException.failed("reading the session timeout", e);
        }
    }

    /** Closes {@code recipe} when this client closes, before the session ends; returns it. */
    <T extends AutoCloseable> T attach(T recipe) {
        synchronized (recipes) {
            recipes.push(recipe);
        }
        return recipe;
    }

    @Override
    public void close() {
        try {
            while (true) {
                AutoCloseable recipe;
                synchronized (recipes) {
                    recipe = recipes.poll();
                }
                if (recipe == null) {
                    break;
                }
                try {
                    recipe.close();
                } catch (Exception e) {
                    LOG.log(System.Logger.Level.WARNING, "closing " + recipe + " before the session ends", e);
                }
            }
        } finally {
            curator.close();
        }
    }
}
