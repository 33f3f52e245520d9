package io.hedgerow.benchmarks;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.search.IndexContext;
import io.hedgerow.leaf.search.PartitionSearcher;
import io.hedgerow.leaf.search.SlicedSearch;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopScoreDocCollector;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.util.BytesRef;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What it costs to run an expensive search in slices and resume it, against running it to its end:
 * the time-slicing benchmark's expensive query (an OR of the partition's most frequent body terms,
 * k=1,000, every hit counted) on one partition, in this thread (so wall time is CPU time), three
 * ways: to its end in one go; in slices of {@code sliceMicros} of one search after the other; and
 * four searches taking turns slice by slice, as a leaf's lane runs several at once (each resumption
 * then finds the caches holding another search's postings).
 *
 * <p>How to run (after {@code ./hedgerow index --scale 20} has built data/europarl-x20):
 * <pre>
 * java --add-modules=jdk.incubator.vector -jar benchmarks/target/hedgerow-benchmarks.jar SliceResumptionBenchmark \
 *     -p indexDir=data/europarl-x20
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(value = 1, jvmArgsAppend = "--add-modules=jdk.incubator.vector")
public class SliceResumptionBenchmark {
    /** Searches that take turns in {@link #interleaved()}. */
    private static final int TURNS = 4;

    @Param("data/europarl-x20")
    String indexDir;

    @Param("128")
    int orTerms;

    @Param({"250", "1000", "4000"})
    long sliceMicros;

    private PartitionSearcher partition;
    private final List<Query> queries = new ArrayList<>();
    private SearchRequest request;
    private int next;

    @Setup(Level.Trial)
    public void open() throws IOException, Exception {
        PartitionStore store = new PartitionStore(Path.of(indexDir));
        IndexContext context = IndexContext.of(store, store.readManifest());
        partition = PartitionSearcher.open(context, 0);
        List<String> frequent = frequentTerms(store, context, orTerms + TURNS);
        for (int q = 0; q < TURNS; q++) {
            // Each query leaves out a different few of the terms, so the four are alike but not one query.
            queries.add(context.parsing().parse(String.join(" ", frequent.subList(q, q + orTerms))));
        }
        request = SearchRequest.newBuilder().setK(1000).setTotalHitsThreshold(Integer.MAX_VALUE).build();
    }

    private static List<String> frequentTerms(PartitionStore store, IndexContext context, int count) throws IOException {
        try (DirectoryReader reader = DirectoryReader.open(new MMapDirectory(
                store.partitionDir(context.manifest(), 0)))) {
            Terms terms = MultiTerms.getTerms(reader, "body");
            record Term(String text, int docFreq) {
            }
            List<Term> all = new ArrayList<>();
            TermsEnum iterator = terms.iterator();
            for (BytesRef term = iterator.next(); term != null; term = iterator.next()) {
                String text = term.utf8ToString();
                if (text.chars().allMatch(Character::isLetter)) {
                    all.add(new Term(text, iterator.docFreq()));
                }
            }
            all.sort(Comparator.comparingInt(Term::docFreq).reversed());
            return all.stream().limit(count).map(Term::text).toList();
        }
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        partition.close();
    }

    private SlicedSearch<?, ? extends TopDocs> start(Query query) throws IOException {
        try {
            return partition.startSliced(query, request, null, Ticker.system(), SlicedSearch.Windows.DEFAULT);
        } catch (io.hedgerow.leaf.search.BadQueryException e) {
            throw new IllegalStateException("a plain scored search has no sort to refuse", e);
        }
    }

    /** One search to its end. */
    @Benchmark
    public long whole() throws IOException {
        return start(queries.get(next++ % TURNS)).run().totalHits.value();
    }

    /** One search in slices, resumed at once after each. */
    @Benchmark
    public long sliced() throws IOException {
        SlicedSearch<?, ? extends TopDocs> search = start(queries.get(next++ % TURNS));
        long budget = sliceMicros * 1000;
        while (search.step(budget)) {
            // resumes where it stopped
        }
        return search.result().totalHits.value();
    }

    /** Four searches taking turns a slice at a time; the time is for all four (compare with 4 x whole). */
    @Benchmark
    public long interleaved() throws IOException {
        List<SlicedSearch<?, ? extends TopDocs>> searches = new ArrayList<>();
        for (Query query : queries) {
            searches.add(start(query));
        }
        long budget = sliceMicros * 1000;
        long hits = 0;
        while (!searches.isEmpty()) {
            for (int i = searches.size() - 1; i >= 0; i--) {
                if (!searches.get(i).step(budget)) {
                    hits += searches.remove(i).result().totalHits.value();
                }
            }
        }
        return hits;
    }
}
