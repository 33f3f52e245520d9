package io.hedgerow.leaf.search;

import io.hedgerow.common.wire.proto.AggregationResult;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.MultiCollector;
import org.apache.lucene.search.TopDocs;

/**
 * The top hits and a search's aggregations in one pass: each collector is the hits' collector and
 * an {@link AggregationCollector} side by side ({@link MultiCollector}); the result is the hits'
 * {@link TopDocs} carrying the aggregations ({@link Aggregated}), so that whoever runs the search
 * (in one pass or in slices) handles it as any other. Used only for a request with aggregations:
 * a request without them gets the hits' manager alone and allocates nothing of this.
 *
 * <p>With aggregations every matching document is collected (the score mode is no longer top
 * scores only), so the hit count is exact whatever the total hits threshold.
 *
 * <p>Must build its collectors in one go per search, as {@link CollectorManager} requires a
 * different instance per call; {@link #aggregations} are made for each call from the same checked
 * plan.
 */
final class AggregatingCollectorManager<C extends Collector> implements CollectorManager<Collector, TopDocs> {
    private final CollectorManager<C, ? extends TopDocs> hits;
    private final AggregationPlan aggregations;
    private final List<Pair<C>> made = new ArrayList<>(1);

    /** A collector each of hits and aggregations, and the one wrapping both. */
    private record Pair<C>(C hits, AggregationCollector aggregations, Collector both) {
    }

    /** Builds aggregation collectors; checked against the index before the search runs. */
    @FunctionalInterface
    interface AggregationPlan {
        AggregationCollector newCollector() throws IOException;
    }

    AggregatingCollectorManager(CollectorManager<C, ? extends TopDocs> hits, AggregationPlan aggregations) {
        this.hits = hits;
        this.aggregations = aggregations;
    }

    @Override
    public Collector newCollector() throws IOException {
        C hitCollector = hits.newCollector();
        AggregationCollector aggregationCollector = aggregations.newCollector();
        Collector both = MultiCollector.wrap(hitCollector, aggregationCollector);
        synchronized (made) {
            made.add(new Pair<>(hitCollector, aggregationCollector, both));
        }
        return both;
    }

    @Override
    public TopDocs reduce(Collection<Collector> collectors) throws IOException {
        List<C> hitCollectors = new ArrayList<>(collectors.size());
        List<AggregationCollector> aggregationCollectors = new ArrayList<>(collectors.size());
        synchronized (made) {
            for (Collector collector : collectors) {
                Pair<C> pair = made.stream().filter(p -> p.both() == collector).findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("collector: not made by this manager"));
                hitCollectors.add(pair.hits());
                aggregationCollectors.add(pair.aggregations());
            }
        }
        if (aggregationCollectors.size() != 1) {
            // Searches here run on a searcher without an executor: one collector per search.
            throw new IllegalStateException("collectors: " + aggregationCollectors.size() + " (expected: 1, a search"
                    + " without an executor)");
        }
        return new Aggregated(hits.reduce(hitCollectors), aggregationCollectors.get(0).results());
    }

    /**
     * The hits of a search with aggregations, and the aggregations' answers. Its own fields are
     * those of {@link #hits()}, so it reads as those hits; {@link #hits()} itself keeps its type
     * (a sorted search's {@link org.apache.lucene.search.TopFieldDocs}).
     */
    static final class Aggregated extends TopDocs {
        private final TopDocs hits;
        private final List<AggregationResult> results;

        Aggregated(TopDocs hits, List<AggregationResult> results) {
            super(hits.totalHits, hits.scoreDocs);
            this.hits = hits;
            this.results = List.copyOf(results);
        }

        TopDocs hits() {
            return hits;
        }

        List<AggregationResult> results() {
            return results;
        }
    }
}
