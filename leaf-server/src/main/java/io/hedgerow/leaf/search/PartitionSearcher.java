package io.hedgerow.leaf.search;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.FetchedDoc;
import io.hedgerow.common.wire.proto.HighlightSpec;
import io.hedgerow.common.wire.proto.Hit;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import java.io.Closeable;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.QueryTimeout;
import org.apache.lucene.index.Terms;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TopFieldCollectorManager;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopScoreDocCollectorManager;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.store.MMapDirectory;

/**
 * Searches one micro-partition in two phases: the query phase (here) finds the top k by score
 * (ties by doc id), or by the request's sort (ties by id), and counts hits up to a threshold; the
 * fetch phase ({@link DocumentFetcher}, behind {@link #fetch}) loads stored fields, a snippet and
 * highlights for the few hits that made the merged top k. Both find ids through {@link IdLookup}.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe; any number of workers may search at once.
 * {@link #close()} may race with searches: a search first {@link #tryAcquire() acquires} the
 * reader and the reader closes only after the last search releases it.
 */
public final class PartitionSearcher implements Closeable {
    private final int partition;
    private final IndexContext context;
    private final DirectoryReader reader;
    private final IndexSearcher sharedSearcher;
    /** The fetch phase, on the same reader. */
    private final DocumentFetcher fetcher;
    /** The request's filter, sort and search_after, made Lucene's with the index's config. */
    private final SearchShape shape;

    private PartitionSearcher(int partition, IndexContext context, DirectoryReader reader) {
        this.partition = partition;
        this.context = context;
        this.reader = reader;
        this.sharedSearcher = newSearcher(reader);
        this.shape = new SearchShape(context.manifest().config());
        // The fetch phase runs no query over the partition: it gets a searcher without the cache.
        IndexSearcher uncached = new IndexSearcher(reader);
        uncached.setQueryCache(null);
        this.fetcher = new DocumentFetcher(partition, context, uncached);
    }

    /** Opens the partition's Lucene index read-only, memory-mapped. */
    public static PartitionSearcher open(IndexContext context, int partition) throws IOException {
        MMapDirectory directory = new MMapDirectory(context.store().partitionDir(context.manifest(), partition));
        DirectoryReader reader;
        try {
            reader = DirectoryReader.open(directory);
        } catch (IOException | RuntimeException e) {
            directory.close();
            throw e;
        }
        // The reader does not own its directory: close the directory when the last user is gone.
        reader.getReaderCacheHelper().addClosedListener(key -> directory.close());
        return new PartitionSearcher(partition, context, reader);
    }

    /**
     * A searcher on a reader opened elsewhere (a near-real-time reader of a partition that takes
     * writes). It takes over the caller's reference: closing the searcher releases it.
     */
    public static PartitionSearcher of(IndexContext context, int partition, DirectoryReader reader) {
        return new PartitionSearcher(partition, context, reader);
    }

    public int partition() {
        return partition;
    }

    public long docCount() {
        return reader.numDocs();
    }

    public IndexContext context() {
        return context;
    }

    /** The terms of a field across the partition's segments, or null if no document has it. */
    Terms terms(String field) throws IOException {
        return MultiTerms.getTerms(reader, field);
    }

    /**
     * The query a search request asks here: its text parsed in its language ({@link QueryParsing}),
     * with its filter as a FILTER clause.
     */
    public Query queryOf(SearchRequest request) throws BadQueryException {
        return shape.filtered(context.parsing().parse(request.getQuery(), request.getLang()), request);
    }

    /** Pins the reader for one search; false when the partition is closing. */
    public boolean tryAcquire() {
        return reader.tryIncRef();
    }

    public void release() throws IOException {
        reader.decRef();
    }

    /**
     * The query phase: runs a parsed query for the top k by score (ties by doc id) or by the
     * request's sort, and the total hit count, with each hit's id read from doc values. The caller holds an
     * {@link #tryAcquire() acquired} reader.
     *
     * @throws BadQueryException when a wildcard or the like matches more terms here than the limit, or
     *         the rewritten query has more clauses than Lucene's limit
     *
     * @param timeout polled while scoring; when it says to exit, the answer is what was found so
     *                far and is marked {@code cut_short}. Null means run to the end.
     */
    public SearchResponse.Builder search(Query query, SearchRequest request, QueryTimeout timeout)
            throws IOException, BadQueryException {
        query = prepare(query).query();
        IndexSearcher searcher = sharedSearcher;
        if (timeout != null) {
            // The timeout is per searcher, and searchers are cheap views of the shared reader.
            searcher = newSearcher(reader);
            searcher.setTimeout(timeout);
        }
        TopDocs top;
        try {
            top = searcher.search(query, collectorManager(request, shape));
        } catch (IndexSearcher.TooManyClauses e) {
            throw expandedPastClauseLimit(e);
        }
        return response(request, top, timeout != null && searcher.timedOut());
    }

    /**
     * What the query will cost here, before anything of it is set up ({@link QueryCostEstimator}),
     * enforcing the expansion budget of the index's {@link QueryLimits}. The caller holds an
     * {@link #tryAcquire() acquired} reader.
     *
     * @throws BadQueryException when the query's wildcards and the like match or visit more terms here
     *         than the limits allow
     */
    public QueryCost estimateCost(Query query) throws IOException, BadQueryException {
        return prepare(query).cost();
    }

    /**
     * What the query will cost here and the query ready to run here, from one pass over its terms
     * ({@link QueryCostEstimator#prepare}): run {@link QueryCostEstimator.Prepared#query()}, whose
     * term queries carry the term states the estimate looked up, on this partition only. Enforces
     * the expansion budget as {@link #estimateCost} does. The caller holds an {@link #tryAcquire()
     * acquired} reader.
     */
    public QueryCostEstimator.Prepared prepare(Query query) throws IOException, BadQueryException {
        return QueryCostEstimator.prepare(query, sharedSearcher, context.parsing().limits(), partition);
    }

    /**
     * As {@link #prepare(Query)}, with the request's aggregations in the cost: each reads a doc
     * value of every matching document, so each adds as many postings as the query can match here
     * (its postings, at most every document). A request without aggregations costs what its query
     * does.
     */
    public QueryCostEstimator.Prepared prepare(Query query, SearchRequest request) throws IOException, BadQueryException {
        QueryCostEstimator.Prepared prepared = prepare(query);
        if (request.getAggsCount() == 0) {
            return prepared;
        }
        QueryCost cost = prepared.cost();
        long matches = Math.min(reader.maxDoc(), cost.postings());
        long aggregating = matches > Long.MAX_VALUE / request.getAggsCount() ? Long.MAX_VALUE : matches * request.getAggsCount();
        long postings = cost.postings() + aggregating < 0 ? Long.MAX_VALUE : cost.postings() + aggregating;
        return new QueryCostEstimator.Prepared(prepared.query(),
                QueryCost.of(postings, cost.expandedTerms(), cost.termsVisited()));
    }

    /**
     * The query phase in slices: the same search as {@link #search}, ready to run a budget of work at
     * a time ({@link SlicedSearch#step}; the first step rewrites the query and builds its weight);
     * its end gives the same answer through {@link #response}. The caller has {@link #prepare
     * prepared} the query here (which enforces the expansion budget) and passes the prepared one, and holds an {@link
     * #tryAcquire() acquired} reader until the search is done.
     *
     * @param timeout   polled before each unit of work; when it says to exit, the search ends with what
     *                  it found, {@link SlicedSearch#cutShort() cut short}. Null means run to the end.
     * @param workClock measures each slice's budget
     */
    public SlicedSearch<?, ? extends TopDocs> startSliced(Query query, SearchRequest request,
            QueryTimeout timeout, Ticker workClock, SlicedSearch.Windows windows) throws IOException, BadQueryException {
        return SlicedSearch.start(sharedSearcher, query, collectorManager(request, shape), timeout, workClock, windows);
    }

    /**
     * Lucene's clause limit, passed when the query was rewritten: its fuzzy, wildcard, prefix or range
     * terms expanded into more clauses (or nested deeper) than Lucene runs. Every replica rewrites
     * alike, so it is a bad query, not an error to retry elsewhere.
     */
    public static BadQueryException expandedPastClauseLimit(IndexSearcher.TooManyClauses e) {
        String what = e instanceof IndexSearcher.TooManyNestedClauses ? "nests more clauses" : "expands to more clauses";
        return new BadQueryException("the query " + what + " than Lucene's limit when its fuzzy, wildcard, prefix or"
                + " range terms are rewritten (expected: <= " + IndexSearcher.getMaxClauseCount() + " clauses after"
                + " rewriting, Lucene's clause limit, which --max-clauses cannot raise; use fewer such terms)", e);
    }

    /**
     * Top k by score (ties by doc id), or by the request's sort (ties by id) after its search_after,
     * counting hits exactly up to the request's threshold (default 1,000).
     */
    private CollectorManager<? extends Collector, ? extends TopDocs> collectorManager(SearchRequest request,
            SearchShape shape) throws BadQueryException, IOException {
        CollectorManager<? extends Collector, ? extends TopDocs> hits = hitsManager(request, shape);
        if (request.getAggsCount() == 0) {
            return hits; // no aggregations: nothing of them is allocated
        }
        // Checked here, before the search runs: a bad aggregation is refused, never half computed.
        return new AggregatingCollectorManager<>(hits,
                AggregationCollector.of(request.getAggsList(), context.manifest().config(), reader));
    }

    private static CollectorManager<? extends Collector, ? extends TopDocs> hitsManager(SearchRequest request,
            SearchShape shape) throws BadQueryException {
        int threshold = request.getTotalHitsThreshold() > 0 ? request.getTotalHitsThreshold() : 1000;
        Sort sort = shape.sort(request);
        if (sort == null) {
            return new TopScoreDocCollectorManager(Math.max(1, request.getK()), null, threshold);
        }
        return new TopFieldCollectorManager(sort, Math.max(1, request.getK()), shape.after(request, sort), threshold);
    }

    /** The answer to a query phase that found {@code top}, with each hit's id. */
    public SearchResponse.Builder response(SearchRequest request, TopDocs top, boolean cutShort) throws IOException {
        List<io.hedgerow.common.wire.proto.AggregationResult> aggregations = List.of();
        if (top instanceof AggregatingCollectorManager.Aggregated aggregated) {
            aggregations = aggregated.results();
            top = aggregated.hits();
        }
        String[] ids = ids(top.scoreDocs);
        SearchResponse.Builder response = SearchResponse.newBuilder()
                .setRequestId(request.getRequestId())
                .setPartition(partition)
                .setStatus(Status.OK)
                .setTotalHits(top.totalHits.value())
                .setTotalHitsExact(top.totalHits.relation() == TotalHits.Relation.EQUAL_TO)
                .setCutShort(cutShort);
        // A sorted search's answer carries the sort it ran with: no need to build it again from the request.
        SortField[] sort = top instanceof TopFieldDocs sorted ? sorted.fields : null;
        for (int i = 0; i < top.scoreDocs.length; i++) {
            Hit.Builder hit = Hit.newBuilder().setId(ids[i]).setScore(top.scoreDocs[i].score).setDoc(top.scoreDocs[i].doc);
            if (sort != null) {
                shape.addSortValues(hit, (FieldDoc) top.scoreDocs[i], sort);
            }
            response.addHits(hit);
        }
        if (!aggregations.isEmpty()) {
            response.addAllAggs(aggregations); // only then: adding even none would allocate the list
        }
        return response;
    }

    /**
     * A searcher with the leaf's query cache ({@code --query-cache}), or without one, the default:
     * Lucene caches only non-scoring clauses that recur, so where none do it only adds bookkeeping
     * to every search.
     */
    private IndexSearcher newSearcher(DirectoryReader reader) {
        return context.queryCache().configure(new IndexSearcher(reader));
    }

    /** Ids of the given hits, from the id field's doc values, visiting segments in doc order. */
    private String[] ids(ScoreDoc[] hits) throws IOException {
        int[] docs = new int[hits.length];
        for (int i = 0; i < hits.length; i++) {
            docs[i] = hits[i].doc;
        }
        return IdLookup.idsOf(reader, partition, docs);
    }

    /**
     * The doc ids of documents named by their id, -1 for an id this partition does not hold (or holds
     * only deleted): a term lookup on the id field, which is indexed as one term, in each segment's
     * terms dictionary until found. Cheap: one seek per id and segment, on the memory-mapped files
     * the query phase already touched, so a fetch costs about what it did by doc id, and a replica
     * whose files differ (another merge, live writes) still finds the right document. The caller
     * holds an {@link #tryAcquire() acquired} reader.
     */
    public int[] docsOf(String[] ids) throws IOException {
        return IdLookup.docsOf(reader, ids);
    }

    /**
     * The fetch phase: returned stored fields and a highlighted snippet of each given document, and
     * its id read back from the document (so the root can check it got the document it asked for).
     * A doc of -1 (an id {@link #docsOf} did not find) comes back with doc -1, an empty id and
     * nothing else. The caller holds an {@link #tryAcquire() acquired} reader.
     *
     * @param docs document ids within this partition, or -1
     * @throws IllegalArgumentException naming a doc id that is not in this partition
     */
    public List<FetchedDoc.Builder> fetch(Query query, int[] docs, boolean snippets, boolean storedFields)
            throws IOException {
        return fetch(query, docs, snippets, storedFields, null, null);
    }

    /**
     * As {@link #fetch(Query, int[], boolean, boolean)}, returning only the {@code fields} named
     * (those of them this index returns; the others are not read), and with {@code highlight},
     * fragments of the fields it names (read in the same stored-fields pass) on each document found.
     *
     * @param fields    the fields to return, or null for every returned field
     * @param highlight the fields to highlight and the tags, or null for none
     */
    public List<FetchedDoc.Builder> fetch(Query query, int[] docs, boolean snippets, boolean storedFields,
            Collection<String> fields, HighlightSpec highlight) throws IOException {
        return fetcher.fetch(query, docs, snippets, storedFields, fields, highlight);
    }

    @Override
    public void close() throws IOException {
        reader.decRef();
    }
}
