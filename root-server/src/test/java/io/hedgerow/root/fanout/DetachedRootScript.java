package io.hedgerow.root.fanout;

import io.hedgerow.api.SearchException;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.root.adapt.AdaptationSettings;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.hedge.HedgeSettings;
import io.hedgerow.root.metrics.RootMetrics;
import io.hedgerow.root.search.DispatchPolicy;
import io.hedgerow.root.tail.IndexQueryParser;
import io.hedgerow.root.tail.TailSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;
import java.util.stream.IntStream;

/**
 * The root's request path scripted on a manual clock, through {@link DetachedRoot}: the test is the
 * wire. It keeps every copy sent ({@link #sent}) and the time each search's timer is armed for (its
 * {@link DetachedRoot.Search#attachment}); cancels and ends are not recorded. The test answers
 * copies ({@link #answer}) and moves the clock ({@link #at}).
 */
public final class DetachedRootScript implements DetachedRoot.Wire {
    public static final long MS = 1_000_000L;

    public final ManualTicker ticker = new ManualTicker();
    public final List<DetachedRoot.Copy> sent = new ArrayList<>();
    public final ClusterState cluster;
    /** The meters the request path records into. */
    public final RootMetrics metrics;
    public final DetachedRoot root;
    /** When the script began, on {@link #ticker}: {@link #at} counts from here. */
    public final long startNanos;

    /**
     * @param config the cluster's settings: {@link #config} gives the usual ones
     */
    public DetachedRootScript(ClusterConfig config) {
        ticker.advance(Duration.ofSeconds(1));
        cluster = new ClusterState(config, 1, ticker);
        metrics = new RootMetrics(cluster);
        root = new DetachedRoot(cluster, DispatchPolicy.of(config.adaptation(), 1), metrics, ticker,
                IndexQueryParser.standard(), this);
        startNanos = ticker.nanoTime();
    }

    /**
     * {@code leaves} leaves on ports 9000 and up, as many partitions, 2 replicas of each (p on leaves p
     * and p+1), hedged after a fixed 3 ms, no canaries, every partition needed, and {@code adaptation}.
     */
    public static ClusterConfig config(int leaves, AdaptationSettings adaptation) {
        return ClusterConfig.of("script", IntStream.range(0, leaves).mapToObj(i -> "127.0.0.1:" + (9000 + i)).toList(),
                        leaves, 2)
                .withHedge(HedgeSettings.defaults().withFixedDelay(Duration.ofMillis(3)))
                .withTail(TailSettings.defaults().withCanaries(0).withMinCoverage(1.0).withCache(Duration.ofSeconds(1), 0, 1))
                .withAdaptation(adaptation);
    }

    /** A search for "alpha", 5 hits, nothing to fetch, with a second to run; {@code random} draws its choices. */
    public DetachedRoot.Search search(RandomGenerator random) {
        return root.start(SearchRequest.builder("alpha").k(5).snippets(false).storedFields(false).build(), 1_000 * MS,
                random, ticker.nanoTime());
    }

    /** The copies sent to {@code partition}, in order. */
    public List<DetachedRoot.Copy> sentOf(int partition) {
        return sent.stream().filter(c -> c.partition() == partition).toList();
    }

    /** The last copy sent to {@code partition}. */
    public DetachedRoot.Copy last(int partition) {
        for (int i = sent.size() - 1; i >= 0; i--) {
            if (sent.get(i).partition() == partition) {
                return sent.get(i);
            }
        }
        throw new AssertionError("nothing sent for partition " + partition);
    }

    /** {@code copy}'s leaf answers it now, with {@code status}, having worked {@code serviceNanos}. */
    public void answer(DetachedRoot.Copy copy, Status status, long serviceNanos) {
        copy.search().answered(copy, SearchResponse.newBuilder().setRequestId(copy.requestId())
                .setPartition(copy.partition()).setStatus(status).setServiceNanos(serviceNanos)
                .setTotalHitsExact(true).build(), ticker.nanoTime());
    }

    /** Moves the clock to {@code millis} after the script began. */
    public void at(long millis) {
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
        search.attachment = atNanos;
    }

    @Override
    public void finished(DetachedRoot.Search search, SearchResult result) {
    }

    @Override
    public void failed(DetachedRoot.Search search, SearchException failure) {
    }
}
