package io.hedgerow.root.fanout;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.SearchException;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.root.adapt.AdaptationSettings;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.hedge.HedgeSettings;
import io.hedgerow.root.metrics.RootMetrics;
import io.hedgerow.root.placement.PlacementSettings;
import io.hedgerow.root.search.DispatchPolicy;
import io.hedgerow.root.tail.IndexQueryParser;
import io.hedgerow.root.tail.TailSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The simulator's request path books answers as a connection does: scripted through {@link
 * DetachedRoot} on a manual clock. These are the places where it had drifted from the server.
 */
@Timeout(10)
class DetachedRootBookkeepingTest {
    private static final long MS = 1_000_000L;
    /** Every draw 0: the first candidates, and every shadow sampled. */
    private static final RandomGenerator ZERO = new RandomGenerator() {
        @Override
        public long nextLong() {
            return 0;
        }

        @Override
        public int nextInt(int bound) {
            return 0;
        }
    };

    /** {@code leaves} leaves, as many partitions, 2 replicas (p: p, p+1), hedged after 3 ms, load measured. */
    private static final class Script implements DetachedRoot.Wire {
        final ManualTicker ticker = new ManualTicker();
        final List<DetachedRoot.Copy> sent = new ArrayList<>();
        final ClusterState cluster;
        final DetachedRoot root;
        final long startNanos;

        Script(int leaves) {
            ticker.advance(Duration.ofSeconds(1));
            AdaptationSettings adaptation = AdaptationSettings.defaults().withLatencyAwareChoice(false);
            ClusterConfig config = ClusterConfig.of("script",
                            IntStream.range(0, leaves).mapToObj(i -> "127.0.0.1:" + (9000 + i)).toList(), leaves, 2)
                    .withHedge(HedgeSettings.defaults().withFixedDelay(Duration.ofMillis(3)))
                    .withTail(TailSettings.defaults().withCanaries(0).withMinCoverage(1.0).withCache(Duration.ofSeconds(1), 0, 1))
                    .withAdaptation(adaptation)
                    .withPlacement(PlacementSettings.off().withRebalancing(true)); // something reads the load
            cluster = new ClusterState(config, 1, ticker);
            for (int leaf = 0; leaf < leaves; leaf++) {
                cluster.leaf(leaf).connectionReady();
            }
            root = new DetachedRoot(cluster, DispatchPolicy.of(adaptation, 1), new RootMetrics(cluster), ticker,
                    IndexQueryParser.standard(), this);
            startNanos = ticker.nanoTime();
        }

        DetachedRoot.Search search() {
            return root.start(SearchRequest.builder("alpha").k(5).snippets(false).storedFields(false).build(), 1_000 * MS,
                    ZERO, ticker.nanoTime());
        }

        List<DetachedRoot.Copy> sentOf(int partition) {
            return sent.stream().filter(c -> c.partition() == partition).toList();
        }

        void answer(DetachedRoot.Copy copy, long serviceNanos) {
            copy.search().answered(copy, SearchResponse.newBuilder().setRequestId(copy.requestId())
                    .setPartition(copy.partition()).setStatus(Status.OK).setServiceNanos(serviceNanos)
                    .setTotalHitsExact(true).build(), ticker.nanoTime());
        }

        void at(long millis) {
            ticker.advance(Duration.ofNanos(startNanos + millis * MS - ticker.nanoTime()));
        }

        @Override
        public void send(DetachedRoot.Copy copy) {
            sent.add(copy);
        }

        @Override
        public void cancel(DetachedRoot.Search search, int leaf, long requestId) {
        }

        @Override
        public void armTimer(DetachedRoot.Search search, long atNanos) {
        }

        @Override
        public void finished(DetachedRoot.Search search, SearchResult result) {
        }

        @Override
        public void failed(DetachedRoot.Search search, SearchException failure) {
        }
    }

    @Test
    void aCancelledCopyAddsNothingToItsPartitionsLoad() {
        Script script = new Script(2);
        DetachedRoot.Search search = script.search();
        DetachedRoot.Copy primary = script.sentOf(0).getFirst();
        script.at(1);
        script.answer(script.sentOf(1).getFirst(), MS);
        script.at(3);
        search.timer(script.ticker.nanoTime()); // p0's backup goes to the other replica
        DetachedRoot.Copy backup = script.sentOf(0).getLast();
        assertThat(backup.kind()).isEqualTo(SubRequestTrace.Kind.BACKUP);
        script.at(4);
        script.answer(backup, 2 * MS); // wins: the primary is cancelled
        script.at(50);
        script.answer(primary, 40 * MS); // the cancelled primary's late answer

        assertThat(script.cluster.partitionLoad().totals()[0])
                .as("partition 0's load: its backup's work, not the cancelled primary's (as a connection books it)")
                .isEqualTo(2 * MS);
    }

    @Test
    void aShadowAnswerIsProgressOfItsLeaf() {
        Script script = new Script(3);
        // Leaf 2 slow for over 2 s and 20 answers against its peers: on probation.
        long t = script.ticker.nanoTime();
        for (int i = 0; i < 25; i++) {
            for (int leaf = 0; leaf < 3; leaf++) {
                script.cluster.probation().record(leaf, leaf == 2 ? 100 * MS : MS, t);
            }
        }
        script.cluster.probation().evaluate(t);
        script.ticker.advance(Duration.ofMillis(2_100));
        t = script.ticker.nanoTime();
        for (int i = 0; i < 25; i++) {
            for (int leaf = 0; leaf < 3; leaf++) {
                script.cluster.probation().record(leaf, leaf == 2 ? 100 * MS : MS, t);
            }
        }
        script.cluster.probation().evaluate(t);
        assertThat(script.cluster.probation().onProbation(2)).as("leaf 2 on probation").isTrue();

        script.search();
        DetachedRoot.Copy shadow = script.sent.stream().filter(c -> c.kind() == SubRequestTrace.Kind.SHADOW)
                .findFirst().orElseThrow(() -> new AssertionError("a shadow to leaf 2: " + script.sent));
        assertThat(shadow.leaf()).isEqualTo(2);
        script.ticker.advance(Duration.ofMillis(5));
        script.answer(shadow, MS);

        assertThat(script.root.progress(2).doneSince(shadow.sentNanos()))
                .as("the shadow's answer is work its leaf did (the canary check reads it), as a connection books it")
                .isTrue();
    }
}
