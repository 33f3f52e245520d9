package io.hedgerow.benchmarks;

import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.search.IndexContext;
import io.hedgerow.leaf.search.PartitionSearcher;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.search.Query;
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
 * The leaf's query phase with no network: one query over all 16 Europarl partitions in this
 * thread, as {@link PartitionSearcher} runs it (parse, top 10, exact counts up to 1,000, ids from
 * doc values). The floor under what a cluster can serve per core.
 *
 * <p>How to run (after {@code ./hedgerow index} has built data/europarl):
 * <pre>
 * java --add-modules=jdk.incubator.vector -jar benchmarks/target/hedgerow-benchmarks.jar QueryPhaseBenchmark -p dataDir=data
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--add-modules=jdk.incubator.vector")
public class QueryPhaseBenchmark {
    private static final List<String> QUERIES = List.of("european parliament", "\"human rights\"", "fisheries AND quota",
            "title:budget", "klimawandel OR climate", "commission", "energy", "water policy", "president", "agriculture");

    @Param("data")
    String dataDir;

    private PartitionSearcher[] partitions;
    private IndexContext context;
    private int next;

    @Setup(Level.Trial)
    public void open() throws IOException {
        PartitionStore store = IndexBuilder.ensureEuroparl(Path.of(dataDir), 16, new PrintStream(System.err));
        context = IndexContext.of(store, store.readManifest());
        partitions = new PartitionSearcher[16];
        for (int p = 0; p < 16; p++) {
            partitions[p] = PartitionSearcher.open(context, p);
        }
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        for (PartitionSearcher partition : partitions) {
            partition.close();
        }
    }

    /** One query, parsed once per partition as the leaf does, over every partition. */
    @Benchmark
    public long queryAllPartitions() throws Exception {
        String text = QUERIES.get(next++ % QUERIES.size());
        long hits = 0;
        for (PartitionSearcher partition : partitions) {
            Query query = context.parsing().parse(text);
            SearchResponse.Builder response = partition.search(query, SearchRequest.newBuilder()
                    .setQuery(text).setK(10).setTotalHitsThreshold(1000).build(), null);
            hits += response.getTotalHits();
        }
        return hits;
    }
}
