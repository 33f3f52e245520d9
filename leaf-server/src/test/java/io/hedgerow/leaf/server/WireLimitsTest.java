package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.WireLimits;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.leaf.index.SourceDocument;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A leaf checks every search from the wire against {@link WireLimits}, whoever sent it: a frame
 * asking for two billion hits is refused as a bad query (not run, not allowed to allocate), and the
 * connection goes on serving well-formed searches.
 */
@Timeout(60)
class WireLimitsTest {
    private static final String INDEX = "limits";

    @RegisterExtension
    static final RealLeaves leaves = RealLeaves.of(INDEX, 1, documents());

    private static List<SourceDocument> documents() {
        List<SourceDocument> docs = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            docs.add(new SourceDocument("doc-" + i, Map.of("body", "hawthorn hedge " + i), i + 1));
        }
        return docs;
    }

    @Test
    void refusesKOverThePagingWindowAndOverlongQueriesAsBadQueries() throws IOException {
        LeafServer leaf = leaves.start(leaves.config().withWorkers(1));
        FrameSocket root = leaves.root(leaf);

        assertRefused(root, 1, search(1).setK(WireLimits.MAX_K + 1), "k: 10001 (expected: 0..10000, 0 for 1)");
        assertRefused(root, 2, search(2).setK(Integer.MAX_VALUE), "k: 2147483647 (expected: 0..10000, 0 for 1)");
        assertRefused(root, 3, search(3).setK(-1), "k: -1 (expected: 0..10000, 0 for 1)");
        assertRefused(root, 5, search(5).setQuery("x".repeat(WireLimits.MAX_QUERY_CHARS + 1)),
                "query: 8193 characters (expected: <= 8192)");

        root.send(Frame.newBuilder().setSearch(search(7).setK(WireLimits.MAX_K)).build());
        SearchResponse served = root.receive().getResult();
        assertThat(served.getRequestId()).isEqualTo(7);
        assertThat(served.getStatus()).as("k at the limit is served: %s", served.getError()).isEqualTo(Status.OK);
        assertThat(served.getHitsCount()).isEqualTo(20);
    }

    private static SearchRequest.Builder search(long requestId) {
        return SearchRequest.newBuilder().setRequestId(requestId).setPartition(0).setQuery("body:hawthorn").setK(10);
    }

    private static void assertRefused(FrameSocket root, long requestId, SearchRequest.Builder search, String problem)
            throws IOException {
        root.send(Frame.newBuilder().setSearch(search).build());
        SearchResponse answer = root.receive().getResult();
        assertThat(answer.getRequestId()).isEqualTo(requestId);
        assertThat(answer.getStatus()).as("request %d", requestId).isEqualTo(Status.BAD_QUERY);
        assertThat(answer.getError()).isEqualTo("refused by the leaf: " + problem);
    }
}
