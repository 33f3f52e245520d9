package io.hedgerow.leaf.search;

import io.hedgerow.common.time.Ticker;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.QueryTimeout;
import org.apache.lucene.search.BulkScorer;
import org.apache.lucene.search.CollectionTerminatedException;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.ConstantScoreQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.LeafCollector;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.Bits;

/**
 * A search of one reader that runs in slices and can be resumed where it stopped, so an expensive
 * query need not hold a worker for its whole run ("The Tail at Scale": time-slicing, so a few
 * expensive queries do not add latency to many cheap ones).
 *
 * <p>It does what {@link IndexSearcher#search(Query, CollectorManager)} does on a searcher without
 * an executor (one collector, segments in doc-id order), but scores each segment in windows of
 * doc ids with {@link BulkScorer#score(LeafCollector, Bits, int, int)}, which may be called again
 * with the doc id it returned as the next window's start. Each {@link #step} scores windows until
 * its budget, measured on the injected ticker, is spent; it checks the clock after each window, so
 * a step always scores at least one. The same collector sees the same documents in the same order
 * as in the unsliced search, so it ends with the same top hits, scores and order. Only a hit count
 * that stopped being exact (past the collector's total-hits threshold, a lower bound) may differ:
 * from then on the scorer skips what cannot compete, and how much it skips may depend on where
 * windows start and end.
 *
 * <p>A {@link QueryTimeout} is polled before every window, as Lucene's {@code
 * TimeLimitingBulkScorer} polls it: when it says to exit, the search ends with what it has found
 * and is {@link #cutShort()}.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: one thread at a time may call {@link
 * #step}, and successive steps may run on different threads only if each hand-over is a
 * happens-before edge (a lock or a concurrent queue between them). Lucene's scorers and postings
 * hold no thread affinity (memory-mapped inputs use shared arenas), so a search may move between
 * workers. The caller keeps the reader open until the search is done or abandoned; an abandoned
 * search holds nothing else.
 *
 * @param <C> the collector type
 * @param <T> the result type
 */
public final class SlicedSearch<C extends Collector, T> {
    /**
     * Doc ids per window: the window of Lucene's own {@code BooleanScorer}, so a window boundary
     * rarely cuts one of its windows in two, and long enough that reading the clock after each
     * costs nothing next to the scoring.
     */
    public static final int DEFAULT_WINDOW_DOCS = 2048;

    private final List<LeafReaderContext> leaves;
    private final Weight weight;
    private final CollectorManager<C, T> manager;
    private final C collector;
    private final QueryTimeout timeout;
    private final Ticker ticker;
    private final int windowDocs;

    /** The segment being scored (or last scored); -1 before the first. */
    private int leafIndex = -1;
    /** The open segment's collector; null between segments. */
    private LeafCollector leafCollector;
    /** The open segment's scorer; null when it has no matches. */
    private BulkScorer scorer;
    private Bits liveDocs;
    private int maxDoc;
    /** The first doc id of the open segment not yet scored. */
    private int nextDoc;
    private boolean done;
    private boolean cutShort;
    private long windows;
    private long steps;

    private SlicedSearch(List<LeafReaderContext> leaves, Weight weight, CollectorManager<C, T> manager, C collector,
            QueryTimeout timeout, Ticker ticker, int windowDocs) {
        this.leaves = leaves;
        this.weight = weight;
        this.manager = manager;
        this.collector = collector;
        this.timeout = timeout;
        this.ticker = ticker;
        this.windowDocs = windowDocs;
    }

    /**
     * Prepares a search (rewrites the query and builds its weight, as the unsliced search does) but
     * scores nothing yet.
     *
     * @param timeout polled before each window; null means run to the end
     * @param ticker  the clock that measures each step's budget
     * @param windowDocs doc ids scored per window; at least 1
     */
    public static <C extends Collector, T> SlicedSearch<C, T> start(IndexSearcher searcher, Query query,
            CollectorManager<C, T> manager, QueryTimeout timeout, Ticker ticker, int windowDocs) throws IOException {
        Objects.requireNonNull(ticker, "ticker");
        if (windowDocs < 1) {
            throw new IllegalArgumentException("windowDocs: " + windowDocs + " (expected: >= 1)");
        }
        C collector = manager.newCollector();
        ScoreMode scoreMode = collector.scoreMode();
        // As IndexSearcher.search: a collector that needs no scores gets ConstantScoreQuery's rewrites.
        Query rewritten = searcher.rewrite(scoreMode.needsScores() ? query : new ConstantScoreQuery(query));
        Weight weight = searcher.createWeight(rewritten, scoreMode, 1);
        collector.setWeight(weight);
        return new SlicedSearch<>(searcher.getIndexReader().leaves(), weight, manager, collector, timeout, ticker,
                windowDocs);
    }

    /**
     * Scores windows until {@code budgetNanos} have passed on the ticker (at least one window), or
     * the search ends.
     *
     * @return whether work remains; once false, {@link #result()} is ready
     */
    public boolean step(long budgetNanos) throws IOException {
        if (budgetNanos < 0) {
            throw new IllegalArgumentException("budgetNanos: " + budgetNanos + " (expected: >= 0)");
        }
        if (done) {
            return false;
        }
        steps++;
        long startNanos = ticker.nanoTime();
        do {
            if (timeout != null && timeout.shouldExit()) {
                cutShort = true;
                end();
                return false;
            }
            if (!nextWindowReady()) {
                end();
                return false;
            }
            scoreWindow();
        } while (ticker.nanoTime() - startNanos < budgetNanos);
        // Look ahead, so a search whose last window was this step's says it is done now.
        if (!nextWindowReady()) {
            end();
            return false;
        }
        return true;
    }

    /** Runs the search to its end in one go. */
    public T run() throws IOException {
        while (step(Long.MAX_VALUE)) {
            // one step runs to the end; the loop only guards the contract
        }
        return result();
    }

    /**
     * Moves to the next segment with matches to score when the open one is done (finishing each
     * segment passed); false when every segment is done.
     */
    private boolean nextWindowReady() throws IOException {
        while (leafCollector == null || scorer == null || nextDoc >= maxDoc) {
            if (leafCollector != null) {
                finishSegment();
            }
            if (leafIndex + 1 >= leaves.size()) {
                return false;
            }
            openSegment(leaves.get(++leafIndex));
        }
        return true;
    }

    private void scoreWindow() throws IOException {
        int windowEnd = (int) Math.min((long) nextDoc + windowDocs, maxDoc);
        try {
            // Returns at least windowEnd: the first doc id that may match after the window.
            nextDoc = scorer.score(leafCollector, liveDocs, nextDoc, windowEnd);
        } catch (@SuppressWarnings("unused") CollectionTerminatedException e) {
            nextDoc = maxDoc; // the collector wants nothing more of this segment
        }
        windows++;
    }

    private void openSegment(LeafReaderContext leaf) throws IOException {
        try {
            leafCollector = collector.getLeafCollector(leaf);
        } catch (@SuppressWarnings("unused") CollectionTerminatedException e) {
            leafCollector = null; // nothing in this segment interests the collector
            return;
        }
        ScorerSupplier supplier = weight.scorerSupplier(leaf);
        if (supplier == null) {
            scorer = null;
        } else {
            supplier.setTopLevelScoringClause();
            scorer = supplier.bulkScorer();
        }
        liveDocs = leaf.reader().getLiveDocs();
        maxDoc = leaf.reader().maxDoc();
        nextDoc = 0;
    }

    /** As Lucene does, every segment whose collector was made is finished, matches or not. */
    private void finishSegment() throws IOException {
        LeafCollector finishing = leafCollector;
        leafCollector = null;
        scorer = null;
        liveDocs = null;
        finishing.finish();
    }

    private void end() throws IOException {
        if (leafCollector != null) {
            finishSegment();
        }
        done = true;
    }

    /** Whether the search has ended (run to the end or cut short). */
    public boolean done() {
        return done;
    }

    /** Whether the timeout ended the search before the end; its result is then what it had found. */
    public boolean cutShort() {
        return cutShort;
    }

    /** Windows scored so far. */
    public long windows() {
        return windows;
    }

    /** Calls to {@link #step} made before the search was done. */
    public long steps() {
        return steps;
    }

    /** The collector manager's reduction of the one collector; only once {@link #done()}. */
    public T result() throws IOException {
        if (!done) {
            throw new IllegalStateException("result: search not done after " + windows
                    + " windows (expected: step until it returns false)");
        }
        return manager.reduce(List.of(collector));
    }
}
