package io.hedgerow.root.local;

import io.hedgerow.coordination.ClusterPaths;
import io.hedgerow.coordination.CoordinationSettings;
import java.util.Objects;

/**
 * Where a local cluster's root keeps each partition's primary, term and in-sync set: a ZooKeeper
 * that {@code local} starts as its own child process ({@link #embedded}, data in
 * {@code <run dir>/zk}, so a {@code local} started again on the same run directory finds the stored
 * state), or an ensemble already running ({@link #external}).
 *
 * @param connectString an ensemble's {@code host:port,...}; null: the embedded server
 * @param embeddedPort  with the embedded server, its port (0: a free one)
 * @param cluster       the cluster's name, its znode under {@code /hedgerow}
 */
public record LocalCoordination(String connectString, int embeddedPort, String cluster) {
    /** The value of {@code --zk} that asks for the embedded server (the default of {@code local} and {@code demo}). */
    public static final String EMBEDDED = "embedded";
    /** The value of {@code --zk} that asks for no store: the root keeps the state in its memory. */
    public static final String NONE = "none";

    public LocalCoordination {
        Objects.requireNonNull(cluster, "cluster");
        if (connectString != null && (connectString.isBlank() || connectString.equals(EMBEDDED))) {
            throw new IllegalArgumentException("connectString: '" + connectString + "' (expected: host:port,...,"
                    + " or null for the embedded server)");
        }
        if (embeddedPort < 0 || embeddedPort > 65535) {
            throw new IllegalArgumentException("embeddedPort: " + embeddedPort + " (expected: 0-65535)");
        }
        new ClusterPaths(cluster); // validates the name
    }

    /** A ZooKeeper of the cluster's own, started by {@code local} on {@code port} (0: a free one). */
    public static LocalCoordination embedded(int port, String cluster) {
        return new LocalCoordination(null, port, cluster);
    }

    /** An ensemble already running at {@code connectString}. */
    public static LocalCoordination external(String connectString, String cluster) {
        return new LocalCoordination(connectString, 0, cluster);
    }

    /**
     * The choice a {@code --zk} value names: {@value #EMBEDDED}, {@value #NONE} (empty: the root keeps the
     * state in its memory), or {@code host:port[,host:port...]}.
     *
     * @throws IllegalArgumentException for anything else
     */
    public static java.util.Optional<LocalCoordination> choose(String zk, int embeddedPort, String cluster) {
        Objects.requireNonNull(zk, "zk");
        return zk.strip().equals(NONE) ? java.util.Optional.empty()
                : java.util.Optional.of(parse(zk, embeddedPort, cluster));
    }

    /**
     * The store a {@code --zk} value names: {@value #EMBEDDED}, or {@code host:port[,host:port...]}.
     *
     * @throws IllegalArgumentException for anything else ({@value #NONE} too: see {@link #choose})
     */
    public static LocalCoordination parse(String zk, int embeddedPort, String cluster) {
        Objects.requireNonNull(zk, "zk");
        String value = zk.strip();
        if (value.equals(EMBEDDED)) {
            return embedded(embeddedPort, cluster);
        }
        for (String server : value.split(",", -1)) {
            int colon = server.lastIndexOf(':');
            if (colon <= 0 || !server.substring(colon + 1).matches("[0-9]{1,5}")) {
                throw new IllegalArgumentException("--zk: '" + zk + "' (expected: embedded, none, or host:port[,host:port...])");
            }
        }
        return external(value, cluster);
    }

    public boolean isEmbedded() {
        return connectString == null;
    }

    /** The root's settings once the ensemble's address is known ({@code connectString} of the embedded server). */
    public CoordinationSettings settings(String actualConnectString) {
        return CoordinationSettings.of(actualConnectString, cluster);
    }

    /** For progress lines: where the state lives. */
    public String describe() {
        return (isEmbedded() ? "embedded ZooKeeper" : "ZooKeeper at " + connectString) + ", cluster '" + cluster + "'";
    }
}
