package io.hedgerow.benchmarks;

import io.hedgerow.common.wire.proto.FetchedDoc;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.search.BadQueryException;
import io.hedgerow.leaf.search.IndexContext;
import io.hedgerow.leaf.search.PartitionSearcher;
import io.hedgerow.leaf.search.QueryParsing;
import io.hedgerow.root.merge.HitMerger;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TopScoreDocCollectorManager;
import org.apache.lucene.store.MMapDirectory;

/**
 * One query of the in-process ceiling, start to end, in the calling thread. Thread-safe: every
 * thread of the closed loop calls the same instance.
 */
sealed interface CeilingSearch extends Closeable {
    /** The root's defaults (SearchRequest.DEFAULT_K, DEFAULT_TOTAL_HITS_THRESHOLD), not imported: the root's API moves. */
    int K = 10;
    int TOTAL_HITS_THRESHOLD = 1000;

    /**
     * Runs query {@code index} of the set; returns something of the answer (hits, documents fetched),
     * summed by the caller so the work cannot be optimised away.
     *
     * @throws BadQueryException when the query is refused, as the leaf would refuse it
     */
    long run(int index) throws IOException, BadQueryException;

    /** The cluster's default request, as {@link CeilingOptions.Mode#FULL} describes it. */
    static CeilingSearch full(PartitionStore store, List<String> queries) throws IOException {
        IndexContext context = IndexContext.of(store, store.readManifest());
        PartitionSearcher[] partitions = new PartitionSearcher[context.manifest().partitions()];
        try {
            for (int p = 0; p < partitions.length; p++) {
                partitions[p] = PartitionSearcher.open(context, p);
            }
        } catch (IOException | RuntimeException e) {
            closeAll(partitions);
            throw e;
        }
        return new Full(context, partitions, queries);
    }

    /** Raw Lucene, as {@link CeilingOptions.Mode#RAW} describes it; the queries are parsed here. */
    static CeilingSearch raw(PartitionStore store, List<String> queries) throws IOException {
        IndexContext context = IndexContext.of(store, store.readManifest());
        QueryParsing bodyOnly = new QueryParsing(context.analyzer(), List.of("body"), context.parsing().limits());
        Query[] parsed = new Query[queries.size()];
        for (int i = 0; i < parsed.length; i++) {
            try {
                parsed[i] = bodyOnly.parse(queries.get(i));
            } catch (BadQueryException e) {
                parsed[i] = null; // refused when drawn, as the leaf refuses it
            }
        }
        IndexSearcher[] searchers = new IndexSearcher[context.manifest().partitions()];
        List<DirectoryReader> readers = new ArrayList<>();
        try {
            for (int p = 0; p < searchers.length; p++) {
                MMapDirectory directory = new MMapDirectory(store.partitionDir(context.manifest(), p));
                DirectoryReader reader;
                try {
                    reader = DirectoryReader.open(directory);
                } catch (IOException | RuntimeException e) {
                    directory.close();
                    throw e;
                }
                reader.getReaderCacheHelper().addClosedListener(key -> directory.close());
                readers.add(reader);
                searchers[p] = new IndexSearcher(reader);
                searchers[p].setQueryCache(null); // as the leaf's searchers
            }
        } catch (IOException | RuntimeException e) {
            for (DirectoryReader reader : readers) {
                reader.close();
            }
            throw e;
        }
        return new Raw(searchers, readers, parsed);
    }

    private static void closeAll(PartitionSearcher[] partitions) throws IOException {
        for (PartitionSearcher partition : partitions) {
            if (partition != null) {
                partition.close();
            }
        }
    }

    /**
     * Each partition as a leaf's SearchTask runs it (parse, cost estimate, top k), the answers merged
     * as the root merges them, then the winners fetched as a leaf's FetchTask fetches them (found by
     * id, stored fields and snippets), one fetch per partition holding winners. What it leaves out:
     * the wire, the threads and queues of the leaves and root, slicing, canaries, hedging.
     */
    record Full(IndexContext context, PartitionSearcher[] partitions, List<String> queries) implements CeilingSearch {
        @Override
        public long run(int index) throws IOException, BadQueryException {
            String text = queries.get(index);
            SearchRequest request = SearchRequest.newBuilder().setQuery(text).setK(K)
                    .setTotalHitsThreshold(TOTAL_HITS_THRESHOLD).build();
            SearchResponse[] answers = new SearchResponse[partitions.length];
            for (int p = 0; p < partitions.length; p++) {
                acquire(partitions[p]);
                try {
                    answers[p] = partitions[p].search(context.parsing().parse(text), request, null).build();
                } finally {
                    partitions[p].release();
                }
            }
            Map<Integer, List<String>> idsByPartition = new LinkedHashMap<>();
            for (HitMerger.MergedHit winner : HitMerger.merge(answers, K)) {
                idsByPartition.computeIfAbsent(winner.partition(), p -> new ArrayList<>()).add(winner.hit().getId());
            }
            long fetched = 0;
            Query query = null;
            for (Map.Entry<Integer, List<String>> group : idsByPartition.entrySet()) {
                PartitionSearcher partition = partitions[group.getKey()];
                acquire(partition);
                try {
                    if (query == null) {
                        query = context.parsing().parse(text);
                    }
                    int[] docs = partition.docsOf(group.getValue().toArray(String[]::new));
                    for (FetchedDoc.Builder doc : partition.fetch(query, docs, true, true)) {
                        fetched += doc.getFieldsCount() + doc.getSnippet().length();
                    }
                } finally {
                    partition.release();
                }
            }
            return fetched;
        }

        private static void acquire(PartitionSearcher partition) throws IOException {
            if (!partition.tryAcquire()) {
                throw new IOException("partition " + partition.partition() + " closed while searching");
            }
        }

        @Override
        public void close() throws IOException {
            closeAll(partitions);
        }
    }

    /** Top k of every partition's searcher for a pre-parsed body-only query; nothing else. */
    record Raw(IndexSearcher[] searchers, List<DirectoryReader> readers, Query[] parsed) implements CeilingSearch {
        @Override
        public long run(int index) throws IOException, BadQueryException {
            Query query = parsed[index];
            if (query == null) {
                throw new BadQueryException("query " + index + " did not parse", null);
            }
            long hits = 0;
            for (IndexSearcher searcher : searchers) {
                hits += searcher.search(query, new TopScoreDocCollectorManager(K, null, TOTAL_HITS_THRESHOLD))
                        .totalHits.value();
            }
            return hits;
        }

        @Override
        public void close() throws IOException {
            for (DirectoryReader reader : readers) {
                reader.close();
            }
        }
    }
}
