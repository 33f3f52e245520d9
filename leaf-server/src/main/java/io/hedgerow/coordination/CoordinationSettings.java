package io.hedgerow.coordination;

import java.time.Duration;
import java.util.Objects;

/**
 * How a process talks to the coordination engine.
 *
 * <p><b>Session timeout: 4 s by default,</b> chosen against two needs. A leaf paused for 150 ms every
 * second (SIGSTOP, or a long GC pause) must keep its session, and with it its membership znode: the
 * client pings after a third of the timeout without traffic (1.33 s), and the server ends the session
 * only after a whole timeout without hearing from it, so a session survives any pause shorter than
 * about two thirds of the timeout (2.6 s here, 17 times the 150 ms pause; the client's own read
 * timeout, after which it reconnects, is also two thirds). And a dead leaf must be noticed within a
 * few seconds: ZooKeeper keeps a dead client's session (even one whose TCP connection closed, as
 * it could reconnect) until a whole timeout has passed since it last heard from it (up to a ping
 * interval before the death), then removes its ephemeral znodes at the next tick, so a killed or hung
 * leaf leaves {@link Membership} 2.7-4.5 s after it stopped on the embedded server (3.6 s in
 * {@code LeafPauseTest}'s run), up to 6 s on a default one. 4 s is also the smallest
 * timeout a default ZooKeeper server grants (2 ticks of 2 s); the embedded server ticks every 500 ms
 * ({@link EmbeddedZooKeeper}) and grants 1-10 s.
 *
 * <p><b>Connection timeout: 3 s by default:</b> how long a call waits for a connection before its
 * attempt fails; calls retry until that much time has passed once more, so a call to an unreachable
 * ensemble fails within about 6 s, on the order of one session timeout, rather than Curator's 15 s.
 *
 * @param connectString     ZooKeeper's {@code host:port,host:port,...}
 * @param cluster           the cluster's name, the znode under {@code /hedgerow} holding its state
 * @param sessionTimeout    see above; the server may grant another within its bounds
 * @param connectionTimeout see above
 */
public record CoordinationSettings(String connectString, String cluster, Duration sessionTimeout,
        Duration connectionTimeout) {
    public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(4);
    public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(3);
    public static final String DEFAULT_CLUSTER = "default";

    public CoordinationSettings {
        Objects.requireNonNull(connectString, "connectString");
        if (connectString.isBlank()) {
            throw new IllegalArgumentException("connectString: '" + connectString + "' (expected: host:port,...)");
        }
        new ClusterPaths(cluster); // validates the name
        requirePositive("sessionTimeout", sessionTimeout);
        requirePositive("connectionTimeout", connectionTimeout);
    }

    /** The cluster {@code cluster} on the ensemble at {@code connectString}, with the default timeouts. */
    public static CoordinationSettings of(String connectString, String cluster) {
        return new CoordinationSettings(connectString, cluster, DEFAULT_SESSION_TIMEOUT, DEFAULT_CONNECTION_TIMEOUT);
    }

    public CoordinationSettings withSessionTimeout(Duration newSessionTimeout) {
        return new CoordinationSettings(connectString, cluster, newSessionTimeout, connectionTimeout);
    }

    public CoordinationSettings withConnectionTimeout(Duration newConnectionTimeout) {
        return new CoordinationSettings(connectString, cluster, sessionTimeout, newConnectionTimeout);
    }

    public ClusterPaths paths() {
        return new ClusterPaths(cluster);
    }

    private static void requirePositive(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero() || value.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: > 0 and < 2^31 ms)");
        }
    }
}
