package io.hedgerow.root.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.coordination.CoordinationSettings;
import io.hedgerow.coordination.EmbeddedZooKeeper;
import io.hedgerow.coordination.NodeId;
import io.hedgerow.leaf.server.LeafMembership;
import io.hedgerow.root.Await;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * How often matching registrations to the slots resolves host names (review42b finding 5): each slot's
 * host once for its address, a registering address once per match however many slots share its port, and
 * a leaf turned away (every slot taken) is matched again on a leave or the retry timer, not at every load
 * publication of every leaf. Host names are resolved by a counting resolver, with no DNS. Before, every
 * match resolved every slot at the port, up to three times per registration, at every publication.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class LeafResolutionsTest {
    /** Counts lookups by host; every host resolves to an address of its own. */
    private static final class CountingResolver implements HostResolver {
        final Map<String, AtomicInteger> lookups = new ConcurrentHashMap<>();

        @Override
        public Set<InetAddress> addressesOf(String host) {
            int n = lookups.computeIfAbsent(host, h -> new AtomicInteger()).incrementAndGet();
            try {
                return Set.of(InetAddress.getByAddress(host, new byte[] {10, 0, 0, (byte) (host.hashCode() & 0x7f)}));
            } catch (UnknownHostException e) {
                throw new IllegalStateException(e + " after " + n);
            }
        }

        int of(String host) {
            AtomicInteger n = lookups.get(host);
            return n == null ? 0 : n.get();
        }
    }

    private final CountingResolver resolver = new CountingResolver();

    /** Three listed leaves on one port, every slot taken. */
    private ClusterState fullCluster() {
        return new ClusterState(ClusterConfig.of("idx", List.of("host-a:9001", "host-b:9001", "host-c:9001"), 2, 2),
                1, new ManualTicker(), 1, false, resolver);
    }

    @Test
    void eachSlotsHostIsResolvedOnceAndARegisteringAddressOncePerMatch() {
        ClusterState cluster = fullCluster();
        for (int i = 0; i < 5; i++) {
            assertThat(cluster.slotHolding(LeafAddress.parse("stranger:9001"), "node-s")).isEqualTo(-1);
        }
        assertThat(resolver.of("host-a")).as("a slot's host, once for its address").isEqualTo(1);
        assertThat(resolver.of("host-c")).isEqualTo(1);
        assertThat(resolver.of("stranger")).as("once per match").isEqualTo(5);

        // One match of a registration: looked up, then a vacant slot sought, then a reusable one.
        LeafSpelling spelling = cluster.spelling(LeafAddress.parse("other:9001"));
        assertThat(cluster.slotHolding(spelling, "node-o")).isEqualTo(-1);
        assertThat(cluster.fillSlot(spelling, "node-o")).isEqualTo(-1);
        assertThat(cluster.fillSlot(spelling, "node-o", 0, SlotReuse.DEFAULT)).isEqualTo(-1);
        assertThat(resolver.of("other")).as("once for the three steps").isEqualTo(1);
        assertThat(resolver.of("host-b")).isEqualTo(1);

        cluster.leaf(2).reuse(LeafAddress.parse("host-d:9001"));
        assertThat(cluster.slotHolding(LeafAddress.parse("stranger:9001"), "node-s")).isEqualTo(-1);
        assertThat(resolver.of("host-d")).as("a reused slot's new address, once").isEqualTo(1);
        assertThat(resolver.of("host-a")).isEqualTo(1);
    }

    /**
     * Real ZooKeeper (embedded): a leaf that finds every slot taken publishes its load every 50 ms. Each
     * publication is a membership event; none of them matches it to the slots again: only the 1 s retry
     * does. Before, each publication matched it, resolving its host three times.
     */
    @Test
    void aLeafTurnedAwayIsMatchedAgainByTheRetryTimerNotAtEveryLoadPublication(@TempDir Path data)
            throws Exception {
        ClusterState cluster = fullCluster();
        AtomicLong served = new AtomicLong();
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(EmbeddedZooKeeper.Config.local(0, data.resolve("zk")));
                LeafMembers members = LeafMembers.start(CoordinationSettings.of(zk.connectString(), "resolutions"),
                        cluster, Clock.systemUTC());
                LeafMembership stranger = LeafMembership.start(CoordinationSettings.of(zk.connectString(),
                        "resolutions"), NodeId.of("stranger"), "stranger:9001",
                        () -> Map.of(0, served.incrementAndGet()), Duration.ofMillis(50))) {
            Await.until(() -> "the stranger turned away: " + cluster.membership(), Duration.ofSeconds(30),
                    () -> cluster.membership().initialized() && cluster.membership().unconfigured().size() == 1);
            // Counted from here: lookups before (its join, retries while the wait above polled) are not in the bound.
            long since = System.nanoTime();
            int lookupsBefore = resolver.of("stranger");
            long publishedBefore = cluster.membership().loadTotals()[0];
            Await.until(() -> "20 more publications: " + cluster.membership().loadTotals()[0], Duration.ofSeconds(60),
                    () -> cluster.membership().loadTotals()[0] >= publishedBefore + 20);
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - since);

            // One retry a second, plus one at each end of the window; every publication matching it would be 20 or more.
            assertThat(resolver.of("stranger") - lookupsBefore).as("once per retry (%d s), not per publication", seconds)
                    .isLessThanOrEqualTo((int) seconds + 2);
            assertThat(resolver.of("host-a")).as("a slot's host, once").isEqualTo(1);
        }
    }
}
