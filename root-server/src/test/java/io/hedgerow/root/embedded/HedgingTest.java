package io.hedgerow.root.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.HedgeMode;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.leaf.fault.InjectedDelay;
import io.hedgerow.leaf.fault.InjectedStall;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.server.LeafCounters;
import io.hedgerow.leaf.server.LeafServer;
import io.hedgerow.root.TestData;
import io.hedgerow.root.adapt.AdaptationSettings;
import io.hedgerow.root.hedge.HedgeSettings;
import io.hedgerow.root.tail.TailSettings;
import io.micrometer.core.instrument.Counter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hedged and tied requests end to end, over real sockets: one replica is made slow with fault
 * injection, and the explained result shows which copy answered, and the leaves' counters what
 * the cancels did on the wire. Checks are on traces and counters, never on how fast anything ran:
 * a stuck replica is stuck for longer than any test waits. Every path of the decisions themselves
 * (backups that win and lose, a second round, the budget, twins, fetch backups) is scripted on a
 * manual clock in {@code io.hedgerow.root.search.SearchRun*Test}.
 */
class HedgingTest {
    /** Longer than every query's timeout here: a query that completes did not wait for it. */
    private static final Duration STUCK = Duration.ofSeconds(60);
    private static final int PARTITIONS = 8;

    @Test
    void byDefaultBackupsAnswerForAStuckReplicaAndItsLeafHonoursTheCancels(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = start(data, HedgeSettings.defaults())) {
            SearchResult baseline = search(cluster, query().hedge(HedgeMode.OFF));
            slowDown(cluster, 0, STUCK);

            // No hedge mode named: hedged is the default (a cold root hedges at the 100 ms maximum).
            SearchResult hedged = search(cluster, query());

            assertThat(hedged.tainted()).isFalse();
            assertThat(hedged.hits()).isEqualTo(baseline.hits());
            assertThat(hedged.totalHits()).isEqualTo(baseline.totalHits());
            String slowLeaf = cluster.leaves().get(0).address();
            List<SubRequestTrace> stuck = searches(hedged).stream().filter(t -> t.leaf().equals(slowLeaf)).toList();
            List<SubRequestTrace> used = searches(hedged).stream().filter(SubRequestTrace::used).toList();
            assertThat(stuck).as("copies on the stuck leaf").isNotEmpty().allSatisfy(t -> {
                assertThat(t.used()).isFalse();
                assertThat(t.cancelled()).isTrue();
            });
            assertThat(used).as("one answer per partition, all from the healthy leaf").hasSize(PARTITIONS)
                    .allSatisfy(t -> assertThat(t.leaf()).isNotEqualTo(slowLeaf));
            List<Integer> stuckPrimaries = stuck.stream().filter(t -> t.kind() == SubRequestTrace.Kind.PRIMARY)
                    .map(SubRequestTrace::partition).toList();
            List<SubRequestTrace> usedBackups = used.stream().filter(t -> t.kind() == SubRequestTrace.Kind.BACKUP).toList();
            assertThat(stuckPrimaries).as("partitions whose primary went to the stuck leaf").isNotEmpty();
            assertThat(usedBackups).extracting(SubRequestTrace::partition).containsAll(stuckPrimaries);
            assertThat(counter(cluster, "hedgerow.hedge.backups.won").count()).isEqualTo(usedBackups.size());
            // The stuck leaf answers each cancel: stopped while held, or dropped while still queued.
            awaitTrue(() -> cancelsHonoured(cluster) >= stuck.size());
            assertThat(cancelsHonoured(cluster)).isEqualTo(stuck.size());
            assertThat(counter(cluster, "hedgerow.cancels", "outcome", "too_late").count()).isZero();
        }
    }

    @Test
    void tiedCopiesOnAStalledLeafAreCancelledByTheirTwinsLeaf(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = start(data, HedgeSettings.defaults())) {
            SearchResult baseline = search(cluster, query());
            cluster.root().leafFaults().injectStall(0,
                    InjectedStall.of(Duration.ofSeconds(50), Duration.ofSeconds(60), Duration.ofMinutes(1))).join();

            SearchResult tied = search(cluster, query().hedge(HedgeMode.TIED));

            assertThat(tied.tainted()).isFalse();
            assertThat(tied.hits()).isEqualTo(baseline.hits());
            String stalledLeaf = cluster.leaves().get(0).address();
            List<SubRequestTrace> stalled = searches(tied).stream().filter(t -> t.leaf().equals(stalledLeaf)).toList();
            assertThat(stalled).as("copies on the stalled leaf").isNotEmpty().noneMatch(SubRequestTrace::used);
            assertThat(searches(tied).stream().filter(SubRequestTrace::used))
                    .hasSize(PARTITIONS).allSatisfy(t -> assertThat(t.leaf()).isNotEqualTo(stalledLeaf));
            long stalledFirst = stalled.stream().filter(t -> t.kind() == SubRequestTrace.Kind.PRIMARY).count();
            assertThat(counter(cluster, "hedgerow.tied.pairs").count()).isGreaterThanOrEqualTo(stalledFirst);
            // Every copy the stalled leaf got is dropped there, by the twin's leaf, by a cancel that
            // came before the copy itself, or by the root once the twin answered; none ran.
            LeafServer leaf = cluster.leaves().get(0);
            awaitTrue(() -> dropped(leaf.counters().snapshot()) >= stalled.size());
            LeafCounters.Snapshot counters = leaf.counters().snapshot();
            assertThat(dropped(counters)).isEqualTo(stalled.size());
            assertThat(counters.twinCancelsReceived()).isPositive();
            assertThat(counters.twinCancelsBothRan()).isZero();
            assertThat(cluster.leaves().get(1).counters().snapshot().twinCancelsSent()).isPositive();
            assertThat(counter(cluster, "hedgerow.tied.both.ran").count()).isZero();
        }
    }

    private static long dropped(LeafCounters.Snapshot counters) {
        return counters.twinCancelsDroppedQueued() + counters.tombstonedDrops() + counters.rootCancelsDroppedQueued();
    }

    static EmbeddedCluster start(Path data, HedgeSettings hedge) throws Exception {
        return EmbeddedCluster.builder(data)
                .documents("hedging", IndexConfig.defaults(), TestData.documents(11, 800))
                .leaves(2).partitions(PARTITIONS).replicas(2)
                .defaultTimeout(Duration.ofSeconds(30))
                .faultInjection(true)
                .hedge(hedge)
                .tail(TailSettings.defaults().withCanaries(0)) // canaries have their own tests (TailTest)
                // Replicas in their preferred order, so the stuck leaf gets primaries to hedge; C3 ranking
                // would send them all to whichever leaf the first search measured faster (ReplicaChoiceTest).
                .adaptation(AdaptationSettings.defaults().withLatencyAwareChoice(false))
                .start();
    }

    static SearchRequest.Builder query() {
        return SearchRequest.builder("alpha OR bravo").k(20).exactTotalHits().explain(true);
    }

    static SearchResult search(EmbeddedCluster cluster, SearchRequest.Builder request) {
        return cluster.client().search(request.build()).join();
    }

    /** Delays every sub-request of one leaf, for a minute at most. */
    static void slowDown(EmbeddedCluster cluster, int leaf, Duration delay) {
        cluster.root().leafFaults().injectDelay(leaf, InjectedDelay.of(delay, 1.0, Duration.ofMinutes(1))).join();
    }

    /** The query-phase part of a trace. */
    static List<SubRequestTrace> searches(SearchResult result) {
        return result.trace().stream().filter(t -> t.kind() != SubRequestTrace.Kind.FETCH).toList();
    }

    static Counter counter(EmbeddedCluster cluster, String name, String... tags) {
        return cluster.root().metrics().registry().get(name).tags(tags).counter();
    }

    private static double cancelsHonoured(EmbeddedCluster cluster) {
        return counter(cluster, "hedgerow.cancels", "outcome", "stopped_running").count()
                + counter(cluster, "hedgerow.cancels", "outcome", "dropped_queued").count();
    }

    /** Waits for something that happens asynchronously (answers to cancels); fails after 20 s. */
    static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("condition still false after 20 s").isNegative();
            Thread.sleep(10);
        }
    }
}
