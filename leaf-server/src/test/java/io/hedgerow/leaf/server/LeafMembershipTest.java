package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.coordination.CoordinationClient;
import io.hedgerow.coordination.CoordinationSettings;
import io.hedgerow.coordination.LeafEntry;
import io.hedgerow.coordination.Membership;
import io.hedgerow.coordination.MembershipListener;
import io.hedgerow.coordination.NodeId;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A leaf's membership: registered with its address, its load published as it changes, gone on close. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeafMembershipTest {
    private static final long PATIENCE_SECONDS = 20;
    private static final NodeId LEAF = NodeId.of("leaf-7");

    @Test
    void registersPublishesItsLoadWhenItChangesAndDeregistersOnClose() throws Exception {
        try (TestingServer server = new TestingServer(true);
                CoordinationClient root = CoordinationClient.connect(
                        CoordinationSettings.of(server.getConnectString(), "leafside"))) {
            BlockingQueue<LeafEntry> published = new LinkedBlockingQueue<>();
            CountDownLatch left = new CountDownLatch(1);
            Membership membership = new Membership(root);
            membership.addListener(new MembershipListener() {
                @Override
                public void joined(NodeId node, String address) {
                }

                @Override
                public void published(NodeId node, LeafEntry entry) {
                    if (node.equals(LEAF)) {
                        published.add(entry);
                    }
                }

                @Override
                public void left(NodeId node) {
                    if (node.equals(LEAF)) {
                        left.countDown();
                    }
                }
            });
            membership.start();
            AtomicReference<Map<Integer, Long>> load = new AtomicReference<>(Map.of());

            LeafMembership leaf = LeafMembership.start(CoordinationSettings.of(server.getConnectString(), "leafside"),
                    LEAF, "127.0.0.1:9400", load::get, Duration.ofMillis(50));
            try {
                LeafEntry first = published.poll(PATIENCE_SECONDS, TimeUnit.SECONDS);
                assertThat(first).isNotNull();
                assertThat(first.address()).isEqualTo("127.0.0.1:9400");
                assertThat(first.publishesLoad()).isTrue();
                assertThat(membership.liveLeaves()).containsEntry(LEAF, "127.0.0.1:9400");

                load.set(Map.of(3, 5_000L));
                LeafEntry next = published.poll(PATIENCE_SECONDS, TimeUnit.SECONDS);
                assertThat(next).isNotNull();
                assertThat(next.servedNanos()).containsExactly(Map.entry(3, 5_000L));
                assertThat(next.incarnation()).isEqualTo(first.incarnation());
            } finally {
                leaf.close();
            }
            assertThat(left.await(PATIENCE_SECONDS, TimeUnit.SECONDS)).as("deregistered on close").isTrue();
            membership.close();
        }
    }

    @Test
    void aLeafStartedWithoutANodeIdIsNamedByItsAddress() {
        assertThat(LeafMembership.defaultNodeId("127.0.0.1", 9300)).isEqualTo(NodeId.of("127.0.0.1_9300"));
        assertThat(LeafMembership.defaultNodeId("::1", 9300)).isEqualTo(NodeId.of("--1_9300"));
    }
}
