package io.hedgerow.leaf.search;

import io.hedgerow.common.wire.proto.AggregationResult;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.MultiCollector;
import org.apache.lucene.search.TopDocs;

/**
 * The top hits and a search's aggregations in one pass: the collector is the hits' collector and
 * an {@link AggregationCollector} side by side ({@link MultiCollector}); the result is the hits'
 * {@link TopDocs} carrying the aggregations ({@link Aggregated}), so that whoever runs the search
 * (in one pass or in slices) handles it as any other. Used only for a request with aggregations:
 * a request without them gets the hits' manager alone and allocates nothing of this.
 *
 * <p>With aggregations every matching document is collected (the score mode is no longer top
 * scores only), so the hit count is exact whatever the total hits threshold.
 *
 * <p>Makes one collector, for one search: searches here run on a searcher without an executor (one
 * slice) or in {@link SlicedSearch}, each of which asks one. The aggregations' collector is built
 * (and checked against the index) before the search, so a bad aggregation is refused, never half
 * computed.
 */
final class AggregatingCollectorManager<C extends Collector> implements CollectorManager<Collector, TopDocs> {
    private final CollectorManager<C, ? extends TopDocs> hits;
    private final AggregationCollector aggregations;
    /** The hits' collector, once {@link #newCollector()} has made it. */
    private C hitCollector;
    private Collector both;

    AggregatingCollectorManager(CollectorManager<C, ? extends TopDocs> hits, AggregationCollector aggregations) {
        this.hits = hits;
        this.aggregations = aggregations;
    }

    @Override
    public Collector newCollector() throws IOException {
        if (both != null) {
            throw new IllegalStateException("newCollector: called again (expected: once, for a search without an"
                    + " executor)");
        }
        hitCollector = hits.newCollector();
        both = MultiCollector.wrap(hitCollector, aggregations);
        return both;
    }

    @Override
    public TopDocs reduce(Collection<Collector> collectors) throws IOException {
        if (collectors.size() != 1 || collectors.iterator().next() != both) {
            throw new IllegalArgumentException("collectors: " + collectors.size() + " (expected: the one this manager"
                    + " made)");
        }
        return new Aggregated(hits.reduce(List.of(hitCollector)), aggregations.results());
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
