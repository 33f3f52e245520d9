package io.hedgerow.leaf.search;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.index.SourceDocument;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.search.Query;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionWarmerTest {
    private static final String[] SENTENCES = {
        "The committee debated the fisheries policy and the budget.",
        "Parliament adopted the report on human rights in the union.",
        "The commission presented the budget for agriculture and fisheries.",
        "Members asked the commission about energy and the climate."};

    @TempDir
    Path dir;

    private final List<PartitionSearcher> partitions = new ArrayList<>();

    @BeforeEach
    void openIndex() throws IOException {
        List<SourceDocument> docs = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            docs.add(new SourceDocument(Integer.toString(i), Map.of("title", "Debate " + i, "date", "2001-01-01",
                    "body", SENTENCES[i % 4] + " " + SENTENCES[(i + 1) % 4]), i + 1));
        }
        PartitionStore store = new PartitionStore(dir.resolve("index"));
        new IndexBuilder(IndexOptions.defaults().withPartitions(2), IndexProgress.none())
                .build(store, "index", IndexConfig.europarl(), docs);
        IndexContext context = IndexContext.of(store, store.readManifest());
        partitions.add(PartitionSearcher.open(context, 0));
        partitions.add(PartitionSearcher.open(context, 1));
    }

    @AfterEach
    void close() throws IOException {
        for (PartitionSearcher partition : partitions) {
            partition.close();
        }
    }

    @Test
    void makesQueriesOfEveryShapeFromThePartitionsFrequentTermsAndTheyMatch() throws IOException, BadQueryException {
        List<Query> queries = PartitionWarmer.queriesFrom(partitions.get(0));

        List<String> shapes = queries.stream().map(Query::toString).toList();
        assertThat(shapes).anyMatch(q -> q.contains("+")) // AND
                .anyMatch(q -> q.contains("\"")) // phrase
                .anyMatch(q -> q.contains("*")) // prefix
                .hasSizeGreaterThanOrEqualTo(20);
        SearchRequest request = SearchRequest.newBuilder().setK(10).build();
        assertThat(partitions.get(0).search(queries.get(0), request, null).getTotalHits()).isPositive();
    }

    @Test
    void searchesAndFetchesUntilTheBudgetIsSpentPausingAsLongAsEachSearchTook() throws IOException {
        AtomicLong reads = new AtomicLong();
        Ticker millisPerRead = () -> reads.incrementAndGet() * 1_000_000L;
        List<Long> pauses = new ArrayList<>();

        int searches = new PartitionWarmer(millisPerRead, Duration.ofMillis(200), pauses::add).warm(partitions);

        // One clock read to start (1 ms), then two per search (its start and end): searches start at
        // 2, 4, ... 200 ms, and the one that would start at 202 ms is past the budget's end, 201 ms.
        assertThat(searches).isEqualTo(100);
        assertThat(pauses).hasSize(100).containsOnly(1_000_000L);
    }

    @Test
    void stopsOnceItsSearchRateStopsRising() throws IOException {
        AtomicLong reads = new AtomicLong();
        Ticker fiveMillisPerRead = () -> reads.incrementAndGet() * 5_000_000L;

        int searches = new PartitionWarmer(fiveMillisPerRead, Duration.ofSeconds(60), nanos -> { }).warm(partitions);

        // 100 searches a second from the first 1 s window on, none 10% better for 3 more: converged
        // at the end of the fourth window (4.005 s); the search that would start at 4.01 s does not.
        assertThat(searches).isEqualTo(400);
    }

    @Test
    void keepsWarmingWhileItsSearchRateRises() throws IOException {
        AtomicLong nanos = new AtomicLong();
        // Each read advances the clock less as time goes on: the rate rises 33% from one second to the next.
        Ticker faster = () -> nanos.addAndGet((long) (10_000_000 * Math.pow(0.75, nanos.get() / 1_000_000_000L)));

        new PartitionWarmer(faster, Duration.ofSeconds(5), pause -> { }).warm(partitions);

        // A steady rate would have converged at 4 s.
        assertThat(nanos.get()).as("ran to the end of its budget, 5 s").isGreaterThanOrEqualTo(5_000_000_000L);
    }

    @Test
    void doesNothingWithoutABudget() throws IOException {
        Ticker unused = () -> {
            throw new AssertionError("a warm-up without a budget reads no clock");
        };
        assertThat(new PartitionWarmer(unused, Duration.ZERO, pause -> { }).warm(partitions)).isZero();
    }
}
