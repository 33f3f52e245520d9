package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.leaf.search.QueryLimits;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.lucene.search.IndexSearcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A query that passes the parse-time guards but expands past Lucene's clause limit when rewritten
 * (thirty fuzzy terms of fifty expansions each): the same on every replica, so a bad query, whether
 * the leaf slices its searches or not.
 */
@Timeout(60)
class ClauseLimitTest {
    private static final String INDEX = "clauses";
    /** Terms w0000..w0199: any w00xx is within two edits of every other. */
    private static final int TERMS = 200;

    @RegisterExtension
    static final RealLeaves leaves = RealLeaves.of(INDEX, 1, documents());

    private static List<SourceDocument> documents() {
        List<SourceDocument> docs = new ArrayList<>();
        for (int i = 0; i < TERMS; i++) {
            docs.add(new SourceDocument("doc-" + i, Map.of("body", String.format("w%04d w%04d", i, (i * 7) % TERMS)),
                    i + 1));
        }
        return docs;
    }

    @Test
    void aQueryThatExpandsPastLucenesClauseLimitIsABadQueryNamingTheLimit() throws IOException {
        String fuzzy = IntStream.range(0, 30).mapToObj(i -> String.format("body:w00%02d~2", i * 3))
                .collect(Collectors.joining(" "));
        for (Duration slice : List.of(Duration.ZERO, Duration.ofMillis(1))) {
            LeafServer leaf = leaves.start(leaves.config().withWorkers(1).withSlice(slice));
            FrameSocket root = leaves.root(leaf);
            root.send(Frame.newBuilder().setSearch(SearchRequest.newBuilder().setRequestId(1).setPartition(0)
                    .setQuery(fuzzy).setK(5)).build());

            SearchResponse answer = root.receive().getResult();
            assertThat(answer.getStatus()).as("slice %s", slice).isEqualTo(Status.BAD_QUERY);
            assertThat(answer.getError()).as("slice %s", slice)
                    .contains("expands to more clauses than Lucene's limit", "expected: <= "
                            + IndexSearcher.getMaxClauseCount() + " clauses after rewriting");

            root.send(Frame.newBuilder().setSearch(SearchRequest.newBuilder().setRequestId(2).setPartition(0)
                    .setQuery("body:w0003~2 body:w0150").setK(5)).build());
            assertThat(root.receive().getResult().getStatus()).as("a few fuzzy terms still run").isEqualTo(Status.OK);
        }
    }

    /**
     * The same query, with the expansion budget below what its fuzzy terms match together: refused
     * for the budget, not for Lucene's clause limit, which only the rewrite (the search's set-up)
     * would reach. So the budget is enforced before anything of the query is set up.
     */
    @Test
    void aQueryOverTheExpansionBudgetIsRefusedBeforeItsSetUp() throws IOException {
        String fuzzy = IntStream.range(0, 30).mapToObj(i -> String.format("body:w00%02d~2", i * 3))
                .collect(Collectors.joining(" "));
        QueryLimits limits = QueryLimits.defaults().withMaxExpansionsTotal(500);
        for (Duration slice : List.of(Duration.ZERO, Duration.ofMillis(1))) {
            LeafServer leaf = leaves.start(leaves.config().withWorkers(1).withSlice(slice)
                    .withLimits(limits));
            FrameSocket root = leaves.root(leaf);
            root.send(Frame.newBuilder().setSearch(SearchRequest.newBuilder().setRequestId(1).setPartition(0)
                    .setQuery(fuzzy).setK(5)).build());

            SearchResponse answer = root.receive().getResult();
            assertThat(answer.getStatus()).as("slice %s", slice).isEqualTo(Status.BAD_QUERY);
            assertThat(answer.getError()).as("slice %s", slice)
                    .contains("match more than 500 terms together", "the leaf's --max-expansions-total")
                    .doesNotContain("Lucene's limit");
            assertThat(answer.hasCost()).as("a refusal reports no cost").isFalse();
        }
    }
}
