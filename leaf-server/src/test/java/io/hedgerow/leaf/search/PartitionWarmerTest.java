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
    void searchesAndFetchesUntilTheBudgetIsSpent() throws IOException {
        AtomicLong reads = new AtomicLong();
        Ticker millisPerRead = () -> reads.incrementAndGet() * 1_000_000L;

        int searches = new PartitionWarmer(millisPerRead, Duration.ofMillis(200)).warm(partitions);

        // One clock read to start, then one before each search: 199 searches fit in 200 ms.
        assertThat(searches).isEqualTo(199);
    }

    @Test
    void doesNothingWithoutABudget() throws IOException {
        Ticker unused = () -> {
            throw new AssertionError("a warm-up without a budget reads no clock");
        };
        assertThat(new PartitionWarmer(unused, Duration.ZERO).warm(partitions)).isZero();
    }
}
