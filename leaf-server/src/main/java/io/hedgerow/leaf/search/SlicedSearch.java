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
 * A search of one reader that runs in slices of work and can be resumed where it stopped, so an
 * expensive query need not hold a worker for its whole run ("The Tail at Scale": time-slicing, so
 * a few expensive queries do not add latency to many cheap ones).
 *
 * <p>It does what {@link IndexSearcher#search(Query, CollectorManager)} does on a searcher without
 * an executor (one collector, segments in doc-id order), as a sequence of units of work, each of
 * which a {@link #step} may end after:
 * <ol>
 *   <li>the set-up: rewriting the query and building its weight (for a fuzzy or wildcard query,
 *       rewriting enumerates its terms);</li>
 *   <li>for each segment, building its bulk scorer (where a broad prefix reads the postings of every
 *       term it matches into a doc-id set);</li>
 *   <li>scoring a window of the segment's doc ids with {@link BulkScorer#score(LeafCollector, Bits,
 *       int, int)}, which may be called again with the doc id it returned as the next window's
 *       start.</li>
 * </ol>
 * Each step does units until its budget, measured on the injected work clock (the thread's CPU
 * time in a leaf, so a search the operating system takes off its core is not charged for the
 * wait), is spent; it reads the clock after each unit, so a step always does at least one.
 *
 * <p><b>Windows grow</b>, as Lucene's {@code TimeLimitingBulkScorer} grows its intervals: the first
 * window of a search is small, so a step of a dense query cannot overrun its budget by much before
 * the first clock read, and each next one is half as large again, up to {@link Windows#maxDocs()},
 * so a long search reads the clock rarely. A window is also never larger than what the rest of the
 * step's budget affords at the rate the previous window was scored, nor smaller than a first
 * window: when what is left affords less, the step ends there.
 *
 * <p>The same collector sees the same documents in the same order as in the unsliced search, so it
 * ends with the same top hits, scores and order. Only a hit count that stopped being exact (past the
 * collector's total-hits threshold, a lower bound) may differ: from then on the scorer skips what
 * cannot compete, and how much it skips may depend on where windows start and end.
 *
 * <p>A {@link QueryTimeout} is polled before every unit, as Lucene's {@code TimeLimitingBulkScorer}
 * polls it: when it says to exit, the search ends with what it has found and is {@link #cutShort()}.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: one thread at a time may call {@link
 * #step}, and successive steps may run on different threads only if each hand-over is a
 * happens-before edge (a lock or a concurrent queue between them). Lucene's scorers and postings
 * hold no thread affinity (memory-mapped inputs use shared arenas), so a search may move between
 * workers. The caller keeps the reader open until the search is done or abandoned; an abandoned
 * search holds nothing else. Lucene's {@code TooManyClauses} (a rewrite past the clause limit)
 * comes out of the step that rewrites.
 *
 * @param <C> the collector type
 * @param <T> the result type
 */
public final class SlicedSearch<C extends Collector, T> {
    /**
     * How windows of doc ids grow.
     *
     * @param initialDocs the first window of a search
     * @param maxDocs     the largest window
     */
    public record Windows(int initialDocs, int maxDocs) {
        /** Small enough that a first window of a dense OR costs a few tens of microseconds. */
        public static final Windows DEFAULT = new Windows(512, 1 << 16);

        public Windows {
            if (initialDocs < 1 || maxDocs < initialDocs) {
                throw new IllegalArgumentException("windows: " + initialDocs + ".." + maxDocs
                        + " doc ids (expected: 1 <= initial <= max)");
            }
        }

        /**
         * Each segment in one window, as {@link IndexSearcher#search} scores it: for a search run in
         * one pass (a step with an unlimited budget), whose clock need not be read at all.
         */
        public static final Windows WHOLE = new Windows(Integer.MAX_VALUE, Integer.MAX_VALUE);

        /** Windows that never grow (for tests that count them). */
        public static Windows fixed(int docs) {
            return new Windows(docs, docs);
        }

        int grow(int docs) {
            return (int) Math.min(maxDocs, docs + (long) Math.max(1, docs >> 1));
        }
    }

    private final IndexSearcher searcher;
    private final Query query;
    private final List<LeafReaderContext> leaves;
    private final CollectorManager<C, T> manager;
    private final C collector;
    private final QueryTimeout timeout;
    private final Ticker workClock;
    private final Windows windows;

    /** Null until the set-up unit has run. */
    private Weight weight;
    /** The segment being scored (or last scored); -1 before the first. */
    private int leafIndex = -1;
    /** The open segment's collector; null between segments. */
    private LeafCollector leafCollector;
    /** The open segment's scorer; null when it has no matches, or not built yet. */
    private BulkScorer scorer;
    /** The open segment's scorer supplier, until its scorer is built. */
    private ScorerSupplier supplier;
    private Bits liveDocs;
    private int maxDoc;
    /** The first doc id of the open segment not yet scored. */
    private int nextDoc;
    private int windowDocs;
    /** Work-clock nanoseconds per doc id of the last window, 0 before one was timed. */
    private double nanosPerDoc;
    private boolean done;
    private boolean cutShort;
    private long windowsScored;
    /** The fewest doc ids a window was sized to (a segment's end may cut one shorter). */
    private int smallestWindowDocs = Integer.MAX_VALUE;
    private long units;
    private long steps;

    private SlicedSearch(IndexSearcher searcher, Query query, CollectorManager<C, T> manager, C collector,
            QueryTimeout timeout, Ticker workClock, Windows windows) {
        this.searcher = searcher;
        this.query = query;
        this.leaves = searcher.getIndexReader().leaves();
        this.manager = manager;
        this.collector = collector;
        this.timeout = timeout;
        this.workClock = workClock;
        this.windows = windows;
        this.windowDocs = windows.initialDocs();
    }

    /**
     * A search ready to step; nothing is rewritten, weighed or scored yet (the first step does it).
     *
     * @param timeout   polled before each unit of work; null means run to the end
     * @param workClock measures each step's budget
     */
    public static <C extends Collector, T> SlicedSearch<C, T> start(IndexSearcher searcher, Query query,
            CollectorManager<C, T> manager, QueryTimeout timeout, Ticker workClock, Windows windows) throws IOException {
        Objects.requireNonNull(workClock, "workClock");
        Objects.requireNonNull(windows, "windows");
        return new SlicedSearch<>(searcher, query, manager, manager.newCollector(), timeout, workClock, windows);
    }

    /**
     * Does units of work until {@code budgetNanos} have passed on the work clock (at least one unit),
     * or the search ends.
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
        long startNanos = workClock.nanoTime();
        long usedNanos = 0;
        do {
            if (timeout != null && timeout.shouldExit()) {
                cutShort = true;
                end();
                return false;
            }
            if (!doUnit(budgetNanos - usedNanos)) {
                end();
                return false;
            }
            units++;
            usedNanos = workClock.nanoTime() - startNanos;
        } while (usedNanos < budgetNanos && !tooLittleLeftForAWindow(budgetNanos - usedNanos));
        // Look ahead, so a search whose last unit was this step's says it is done now.
        if (!nextUnitReady()) {
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

    /** One unit of work: the set-up, a segment's scorer, or a window; false when nothing is left. */
    private boolean doUnit(long remainingNanos) throws IOException {
        if (weight == null) {
            prepare();
            return true;
        }
        if (!nextUnitReady()) {
            return false;
        }
        if (scorer == null) {
            ScorerSupplier building = supplier;
            supplier = null;
            building.setTopLevelScoringClause();
            scorer = building.bulkScorer();
            return true;
        }
        scoreWindow(remainingNanos);
        return true;
    }

    /**
     * Moves past the segments with nothing left to score (finishing each, and opening the next's
     * scorer supplier) to the next unit; false when every segment is done.
     */
    private boolean nextUnitReady() throws IOException {
        if (weight == null) {
            return true;
        }
        while (leafCollector == null || (supplier == null && scorer == null) || nextDoc >= maxDoc) {
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

    /** As IndexSearcher.search: a collector that needs no scores gets ConstantScoreQuery's rewrites. */
    private void prepare() throws IOException {
        ScoreMode scoreMode = collector.scoreMode();
        Query rewritten = searcher.rewrite(scoreMode.needsScores() ? query : new ConstantScoreQuery(query));
        weight = searcher.createWeight(rewritten, scoreMode, 1);
        collector.setWeight(weight);
    }

    /**
     * Whether the next unit is a window and what is left of the step's budget affords less than a
     * first window at the last window's rate: such a sliver of a window would cost its scorer's
     * fixed cost per call (a disjunction visits each of its clauses) for a few doc ids, so the step
     * ends and the next one scores a whole window.
     */
    private boolean tooLittleLeftForAWindow(long remainingNanos) {
        return scorer != null && nanosPerDoc > 0 && remainingNanos / nanosPerDoc < windows.initialDocs();
    }

    private void scoreWindow(long remainingNanos) throws IOException {
        int docs = windowDocs;
        if (nanosPerDoc > 0) {
            // No larger than what is left of the step's budget at the last window's rate, and no
            // smaller than a first window (see tooLittleLeftForAWindow).
            long affordable = (long) (remainingNanos / nanosPerDoc);
            docs = (int) Math.min(docs, Math.max(affordable, windows.initialDocs()));
        }
        smallestWindowDocs = Math.min(smallestWindowDocs, docs);
        int windowEnd = (int) Math.min((long) nextDoc + docs, maxDoc);
        int from = nextDoc;
        long before = workClock.nanoTime();
        try {
            // Returns at least windowEnd: the first doc id that may match after the window.
            nextDoc = scorer.score(leafCollector, liveDocs, nextDoc, windowEnd);
        } catch (@SuppressWarnings("unused") CollectionTerminatedException e) {
            nextDoc = maxDoc; // the collector wants nothing more of this segment
        }
        long tookNanos = workClock.nanoTime() - before;
        if (tookNanos > 0) {
            nanosPerDoc = (double) tookNanos / (windowEnd - from);
        }
        windowDocs = windows.grow(windowDocs);
        windowsScored++;
    }

    private void openSegment(LeafReaderContext leaf) throws IOException {
        try {
            leafCollector = collector.getLeafCollector(leaf);
        } catch (@SuppressWarnings("unused") CollectionTerminatedException e) {
            leafCollector = null; // nothing in this segment interests the collector
            return;
        }
        supplier = weight.scorerSupplier(leaf);
        scorer = null;
        liveDocs = leaf.reader().getLiveDocs();
        maxDoc = leaf.reader().maxDoc();
        nextDoc = 0;
    }

    /** As Lucene does, every segment whose collector was made is finished, matches or not. */
    private void finishSegment() throws IOException {
        LeafCollector finishing = leafCollector;
        leafCollector = null;
        scorer = null;
        supplier = null;
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
        return windowsScored;
    }

    /** The fewest doc ids a window was sized to so far (a segment's end may have cut it shorter). */
    public int smallestWindowDocs() {
        return smallestWindowDocs;
    }

    /** Units of work done so far: the set-up, segments' scorers and windows. */
    public long units() {
        return units;
    }

    /** Calls to {@link #step} made before the search was done. */
    public long steps() {
        return steps;
    }

    /** The collector manager's reduction of the one collector; only once {@link #done()}. */
    public T result() throws IOException {
        if (!done) {
            throw new IllegalStateException("result: search not done after " + windowsScored
                    + " windows (expected: step until it returns false)");
        }
        return manager.reduce(List.of(collector));
    }
}
