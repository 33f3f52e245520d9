package io.hedgerow.coordination;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.test.TestingServer;

/**
 * A real ZooKeeper (Curator's {@link TestingServer}, on a free port and a temporary directory) for a
 * test class, and the clients its tests open, closed together. Each test uses a cluster name of its
 * own ({@link #newCluster}), so tests sharing the server do not see each other's znodes.
 * Closing twice is harmless: tests close some clients themselves to end a session.
 */
final class ZooKeeperFixture {
    private final TestingServer server;
    private final List<AutoCloseable> opened = new ArrayList<>();
    private int clusters;

    ZooKeeperFixture() throws Exception {
        server = new TestingServer(true);
    }

    String connectString() {
        return server.getConnectString();
    }

    /** A cluster name no other test of this fixture used. */
    String newCluster() {
        return "test-" + (++clusters);
    }

    /** A new session on {@code cluster}, closed with the fixture. */
    CoordinationClient client(String cluster) throws CoordinationException {
        return track(CoordinationClient.connect(CoordinationSettings.of(connectString(), cluster)));
    }

    <T extends AutoCloseable> T track(T closeable) {
        opened.add(closeable);
        return closeable;
    }

    /** Closes every client and recipe the tests opened, then the server. */
    void shutDown() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            try {
                opened.get(i).close();
            } catch (RuntimeException e) {
                // a failure to close must not hide the test's own outcome
            }
        }
        try {
            server.close();
        } catch (IOException e) {
            throw new IllegalStateException("closing the test ZooKeeper", e);
        }
    }
}
