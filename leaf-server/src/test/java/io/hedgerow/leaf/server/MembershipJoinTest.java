package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.coordination.CoordinationClient;
import io.hedgerow.coordination.CoordinationException;
import io.hedgerow.coordination.CoordinationSettings;
import io.hedgerow.coordination.LeafEntry;
import io.hedgerow.coordination.Membership;
import io.hedgerow.coordination.MembershipListener;
import io.hedgerow.coordination.NodeId;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A leaf started while ZooKeeper does not answer keeps trying to join, and registers once it does
 * (before, {@code leaf --zk} exited: two leaves of a durability run were lost for good that way).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MembershipJoinTest {
    private static final NodeId LEAF = NodeId.of("leaf-late");

    /**
     * An attempt that fails with an unchecked exception (a registration that timed out threw one while
     * closing its znode) is retried like any other; before, it ended the attempts and the leaf never
     * joined, which failed {@link #joinsOnceZooKeeperAnswersAfterFailedAttempts} on a loaded machine.
     */
    @Test
    void retriesAfterAnAttemptThrowsUnchecked() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        BlockingQueue<CoordinationException> failures = new LinkedBlockingQueue<>();
        CountDownLatch joined = new CountDownLatch(1);
        try (TestingServer server = new TestingServer(true);
                MembershipJoin join = MembershipJoin.start(() -> {
                    if (attempts.incrementAndGet() == 1) {
                        throw new IllegalStateException("closing /hedgerow/joining/leaves/leaf-late");
                    }
                    LeafMembership made = LeafMembership.start(
                            CoordinationSettings.of(server.getConnectString(), "joining"), LEAF, "127.0.0.1:9400",
                            Map::of, Duration.ofMillis(50));
                    joined.countDown();
                    return made;
                }, (cause, next) -> failures.add(cause), Duration.ofMillis(50), Duration.ofMillis(100))) {
            assertThat(failures.take()).as("the unchecked failure, reported").hasMessageContaining("closing");
            assertThat(joined.await(30, TimeUnit.SECONDS)).as("tried again and joined").isTrue();
            assertThat(attempts.get()).isEqualTo(2);
            join.whenJoined().get(10, TimeUnit.SECONDS); // the membership is recorded just after the joiner returns
            assertThat(join.joined()).isTrue();
        }
    }

    @Test
    void joinsOnceZooKeeperAnswersAfterFailedAttempts() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        CoordinationSettings settings = CoordinationSettings.of("127.0.0.1:" + port, "joining")
                .withSessionTimeout(Duration.ofSeconds(2)).withConnectionTimeout(Duration.ofMillis(500));
        BlockingQueue<Duration> failures = new LinkedBlockingQueue<>();
        try (MembershipJoin join = MembershipJoin.start(
                () -> LeafMembership.start(settings, LEAF, "127.0.0.1:9400", Map::of, Duration.ofMillis(50)),
                (cause, next) -> failures.add(next), Duration.ofMillis(100), Duration.ofMillis(200))) {
            assertThat(join.joined()).as("nothing answers").isFalse();
            assertThat(failures.take()).as("the first attempt, on the caller's thread").isEqualTo(Duration.ofMillis(100));
            assertThat(failures.take()).as("tried again, backing off").isEqualTo(Duration.ofMillis(200));

            try (TestingServer server = new TestingServer(port, true);
                    CoordinationClient root = CoordinationClient.connect(
                            CoordinationSettings.of(server.getConnectString(), "joining"))) {
                CountDownLatch registered = new CountDownLatch(1);
                Membership membership = new Membership(root);
                membership.addListener(new MembershipListener() {
                    @Override
                    public void joined(NodeId node, String address) {
                        if (node.equals(LEAF) && address.equals("127.0.0.1:9400")) {
                            registered.countDown();
                        }
                    }

                    @Override
                    public void published(NodeId node, LeafEntry entry) {
                    }

                    @Override
                    public void left(NodeId node) {
                    }
                });
                membership.start();
                assertThat(registered.await(30, TimeUnit.SECONDS)).as("registered once ZooKeeper answered").isTrue();
                join.whenJoined().get(10, TimeUnit.SECONDS); // the znode may be seen before the join records it
                assertThat(join.joined()).isTrue();
            }
        }
    }
}
