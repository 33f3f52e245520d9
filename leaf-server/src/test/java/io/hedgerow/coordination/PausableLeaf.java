package io.hedgerow.coordination;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A leaf's coordination side alone, as a process of its own that a test can pause (SIGSTOP) and
 * kill: connects, registers, prints {@code registered} and every connection state change, then waits
 * until killed. Arguments: connect string, cluster, node id, session timeout in ms.
 */
public final class PausableLeaf {
    private PausableLeaf() {
    }

    public static void main(String[] args) throws Exception {
        CoordinationSettings settings = CoordinationSettings.of(args[0], args[1])
                .withSessionTimeout(Duration.ofMillis(Long.parseLong(args[3])));
        CoordinationClient client = CoordinationClient.connect(settings);
        client.curator().getConnectionStateListenable().addListener((curator, state) -> {
            System.out.println("state " + state);
            System.out.flush();
        });
        LeafRegistration.register(client, NodeId.of(args[2]), "127.0.0.1:9400", Duration.ofSeconds(20));
        System.out.println("registered session " + Long.toHexString(client.curator().getZookeeperClient()
                .getZooKeeper().getSessionId()) + " timeout " + client.negotiatedSessionTimeoutMs() + " ms");
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
