package io.hedgerow.coordination;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import org.apache.zookeeper.server.DatadirCleanupManager;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZKDatabase;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.apache.zookeeper.server.persistence.FileTxnSnapLog;
import picocli.CommandLine;

/**
 * A standalone ZooKeeper server (one node, no quorum) for clusters on one machine: {@code ./hedgerow
 * zk} runs it in its own process, so that killing a root or a leaf never takes the cluster's state
 * with it, and the README's commands need nothing installed. Its state is durable in {@code dataDir}
 * (transaction log fsynced before an answer, as any ZooKeeper), and old snapshots and logs are purged
 * hourly, keeping the last 3. For machines of their own, run a real ensemble and give its address.
 *
 * <p>Built from the same parts as ZooKeeper's {@code ZooKeeperServerMain} (a {@link ZooKeeperServer}
 * on a {@link FileTxnSnapLog}, served by a {@link ServerCnxnFactory}), so that it can listen on port 0
 * and report the port it got, and be closed from the same process in tests. Without Jetty on the
 * class path it has no admin HTTP server.
 *
 * <p>Ticks are 500 ms rather than ZooKeeper's 2 s: the server grants session timeouts of 2 to 20 ticks
 * (1-10 s here), which includes {@link CoordinationSettings#DEFAULT_SESSION_TIMEOUT}, and expires a
 * dead session within a tick of its timeout instead of within 2 s of it.
 *
 * <p><b>Assumptions and guarantees.</b> {@link #start} returns once the server accepts connections;
 * {@link #close} stops it and closes its files. One instance per data directory.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {
    /** ZooKeeper's tick for local clusters; see the class comment. */
    public static final int DEFAULT_TICK_MS = 500;
    public static final int DEFAULT_PORT = 2181;
    private static final int MAX_CLIENT_CONNECTIONS = 200;
    private static final int SNAPSHOTS_KEPT = 3;
    private static final int PURGE_INTERVAL_HOURS = 1;

    /**
     * @param host    address to listen on
     * @param port    TCP port; 0 picks a free one ({@link #port} says which)
     * @param dataDir where snapshots and the transaction log live; created if missing
     * @param tickMs  ZooKeeper's tick
     */
    public record Config(String host, int port, Path dataDir, int tickMs) {
        public Config {
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(dataDir, "dataDir");
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port: " + port + " (expected: 0-65535)");
            }
            if (tickMs < 1) {
                throw new IllegalArgumentException("tickMs: " + tickMs + " (expected: >= 1)");
            }
        }

        /** On loopback at {@code port}, with {@link #DEFAULT_TICK_MS}. */
        public static Config local(int port, Path dataDir) {
            return new Config("127.0.0.1", port, dataDir, DEFAULT_TICK_MS);
        }
    }

    private final Config config;
    private final FileTxnSnapLog files;
    private final ZooKeeperServer server;
    private final ServerCnxnFactory connections;
    private final DatadirCleanupManager purge;

    private EmbeddedZooKeeper(Config config, FileTxnSnapLog files, ZooKeeperServer server,
            ServerCnxnFactory connections, DatadirCleanupManager purge) {
        this.config = config;
        this.files = files;
        this.server = server;
        this.connections = connections;
        this.purge = purge;
    }

    /** Starts a server; returns once it accepts connections. */
    public static EmbeddedZooKeeper start(Config config) throws IOException {
        Files.createDirectories(config.dataDir());
        FileTxnSnapLog files = new FileTxnSnapLog(config.dataDir().toFile(), config.dataDir().toFile());
        ServerCnxnFactory connections = null;
        boolean started = false;
        try {
            // -1: session timeouts between ZooKeeper's defaults of 2 and 20 ticks; no listen backlog of ours.
            ZooKeeperServer server = new ZooKeeperServer(files, config.tickMs(), -1, -1, -1, new ZKDatabase(files), "",
                    false);
            connections = ServerCnxnFactory.createFactory(new InetSocketAddress(config.host(), config.port()),
                    MAX_CLIENT_CONNECTIONS);
            connections.startup(server);
            DatadirCleanupManager purge = new DatadirCleanupManager(config.dataDir().toFile(),
                    config.dataDir().toFile(), SNAPSHOTS_KEPT, PURGE_INTERVAL_HOURS);
            purge.start();
            started = true;
            return new EmbeddedZooKeeper(config, files, server, connections, purge);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting ZooKeeper on " + config.host() + ":" + config.port(), e);
        } finally {
            if (!started) {
                // Whatever failed (even an Error such as a missing class), the listening socket and its
                // non-daemon threads must not outlive the attempt and keep the process up.
                shutDown(connections, files);
            }
        }
    }

    /** The port it listens on. */
    public int port() {
        return connections.getLocalPort();
    }

    /** The address clients connect to: {@code host:port}. */
    public String connectString() {
        return config.host() + ":" + port();
    }

    public Config config() {
        return config;
    }

    /** Whether the server is up and serving. */
    public boolean isRunning() {
        return server.isRunning();
    }

    @Override
    public void close() {
        purge.shutdown();
        shutDown(connections, files);
    }

    private static void shutDown(ServerCnxnFactory connections, FileTxnSnapLog files) {
        if (connections != null) {
            connections.shutdown(); // closes the clients' connections, then shuts down the server it serves
        }
        try {
            files.close();
        } catch (IOException e) {
            throw new IllegalStateException("closing ZooKeeper's files in " + files.getDataLogDir(), e);
        }
    }

    /** Runs {@code hedgerow zk} ({@link ZooKeeperCommand}) with {@code args}. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new ZooKeeperCommand()).execute(args));
    }
}
